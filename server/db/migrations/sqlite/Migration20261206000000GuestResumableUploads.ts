import { Migration } from '@mikro-orm/migrations';

/** A guest may send a large file to a file request as a resumable upload, marked with the request, their name and note (ADR 0048). */
export class Migration20261206000000GuestResumableUploads extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `resumable_uploads` add column `request_id` text null;');
    this.addSql('alter table `resumable_uploads` add column `guest_name` text null;');
    this.addSql('alter table `resumable_uploads` add column `guest_note` text null;');
  }
}
