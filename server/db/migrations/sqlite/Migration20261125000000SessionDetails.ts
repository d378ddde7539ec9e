import { Migration } from '@mikro-orm/migrations';

/** What the settings page shows of each session (ADR 0016): browser, address, last seen. */
export class Migration20261125000000SessionDetails extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `sessions` add column `user_agent` text null;');
    this.addSql('alter table `sessions` add column `address` text null;');
    this.addSql('alter table `sessions` add column `last_seen_at` datetime null;');
  }
}
