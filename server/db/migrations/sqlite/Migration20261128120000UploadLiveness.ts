import { Migration } from '@mikro-orm/migrations';

/** Each upload in progress names the content it writes, so the sweep keeps it while its row is fresh (ADR 0029). */
export class Migration20261128120000UploadLiveness extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `upload_reservations` add column `stored_name` text null;');
  }
}
