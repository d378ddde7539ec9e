import { Migration } from '@mikro-orm/migrations';

/** A search of a user's file names reads the names from this index, not every row (ADR 0042). */
export class Migration20261205000000FileNameIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index `files_user_id_original_name_index` on `files` (`user_id`, `original_name`);');
  }
}
