import { Migration } from '@mikro-orm/migrations';

/** A resumable upload may name the collection its file joins once it is made (ADR 0037). */
export class Migration20261129100000UploadsJoinCollections extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `resumable_uploads` add column `collection_id` text null;');
    this.addSql('alter table `resumable_uploads` add column `collection_path` text null;');
  }
}
