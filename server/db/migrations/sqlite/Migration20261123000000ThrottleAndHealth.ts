import { Migration } from '@mikro-orm/migrations';

/**
 * The login throttle's own counters (ADR 0009) replace rate-limiter-flexible's table, whose
 * counts are not carried over (they last 15 minutes at most). `health_probe` holds the one
 * row /healthz rewrites to prove the database commits writes.
 */
export class Migration20261123000000ThrottleAndHealth extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop table if exists `login_throttle`;');
    this.addSql(
      'create table `login_attempts` (`key` text not null, `failures` integer not null, `pending` integer not null, ' +
        '`window_ends_at` integer not null, primary key (`key`));',
    );
    this.addSql(
      'create table `health_probe` (`id` integer not null, `checked_at` integer not null, primary key (`id`));',
    );
  }
}
