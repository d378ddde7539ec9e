import { Migration } from '@mikro-orm/migrations';

/** How My files shows a user's files, a table or a gallery of cards (ADR 0046). */
export class Migration20261201100000FileListView extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "users" add column "file_list_view" varchar(255) not null default \'table\';');
  }
}
