import { Migration } from '@mikro-orm/migrations';

/** Two-factor codes for password logins: the TOTP secret, the last step used, recovery codes (ADR 0043). */
export class Migration20261130000000TwoFactor extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `users` add column `two_factor_enabled` integer not null default false;');
    this.addSql('alter table `users` add column `totp_secret` text null;');
    this.addSql('alter table `users` add column `totp_pending_secret` text null;');
    this.addSql('alter table `users` add column `totp_last_step` integer null;');
    this.addSql('alter table `users` add column `recovery_code_hashes` text null;');
  }
}
