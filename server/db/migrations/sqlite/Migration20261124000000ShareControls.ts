import { Migration } from '@mikro-orm/migrations';

/** Share controls (ADR 0014): expiry, a download limit and its count, a share password. */
export class Migration20261124000000ShareControls extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `files` add column `expires_at` datetime null;');
    this.addSql('alter table `files` add column `max_downloads` integer null;');
    this.addSql('alter table `files` add column `downloads` integer not null default 0;');
    this.addSql('alter table `files` add column `password_hash` text null;');
    this.addSql('create index `files_expires_at_index` on `files` (`expires_at`);');
    this.addSql('create index `files_max_downloads_index` on `files` (`max_downloads`);');
  }
}
