import { Migration } from '@mikro-orm/migrations';

/** Wrong two-factor codes that locked an account's code step, kept until its owner is told (ADR 0058). */
export class Migration20261207005800WrongCodeLockOuts extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `users` add column `unreported_wrong_codes` integer not null default 0;');
    this.addSql('alter table `users` add column `wrong_codes_locked_at` integer null;');
  }
}
