import { Migration } from '@mikro-orm/migrations';

/** How many times a file's share page was opened by others than its owner, apart from its downloads (ADR 0066). */
export class Migration20261208000000FileViews extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "files" add column "views" int not null default 0;');
  }
}
