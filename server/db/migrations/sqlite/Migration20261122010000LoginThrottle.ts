import { Migration } from '@mikro-orm/migrations';

/**
 * Counters of failed logins, per username and per client address (ADR 0009). In the
 * database rather than in memory so they survive restarts and are shared by every instance.
 * The shape is the one rate-limiter-flexible's SQLite store reads and writes.
 */
export class Migration20261122010000LoginThrottle extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `login_throttle` (`key` text primary key, `points` integer not null default 0, `expire` integer);',
    );
  }
}
