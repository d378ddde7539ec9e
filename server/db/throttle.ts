// The `login_attempts` table (ADR 0009, ADR 0058): counters of attempts and failures per key (an
// account, an address, a sign-in step) over a window, which services/login-throttle.ts reads
// and counts with.
import type { EntityManager } from '@mikro-orm/knex';

/** A key's counter in its current window. */
export interface Counter {
  failures: number;
  pending: number;
  windowEndsAt: number;
}

/**
 * The `login_attempts` rows. Each method is one SQL statement in standard syntax that SQLite
 * (3.35+) and PostgreSQL both run atomically. A window that has ended starts afresh at the
 * next reservation or failure; `pending` never drops below zero.
 */
export class LoginAttemptCounters {
  constructor(
    private readonly ctx: { em: EntityManager; clock: { now(): number } },
    /** How long a counter's window lasts from its first count. */
    private readonly windowMs: number,
  ) {}

  async read(key: string): Promise<Counter | null> {
    const [row] = await this.execute('select * from "login_attempts" where "key" = ? and "window_ends_at" > ?', [
      key,
      this.ctx.clock.now(),
    ]);
    return row ? toCounter(row) : null;
  }

  /** One more attempt under way; the counter as it is now. */
  async reserve(key: string): Promise<Counter> {
    return this.upsert(key, { failures: 0, pending: 1 });
  }

  /** One attempt under way has failed (`pending: false`: a failure only, nothing was reserved); the counter now. */
  async fail(key: string, options = { pending: true }): Promise<Counter> {
    return this.upsert(key, { failures: 1, pending: options.pending ? -1 : 0 });
  }

  /** One more event counted (no attempt left pending); the counter as it is now. */
  async add(key: string): Promise<Counter> {
    return this.upsert(key, { failures: 1, pending: 0 });
  }

  /** One attempt under way ended without counting. */
  async release(key: string): Promise<void> {
    await this.execute(
      'update "login_attempts" set "pending" = case when "pending" > 0 then "pending" - 1 else 0 end where "key" = ?',
      [key],
    );
  }

  /** One attempt under way succeeded: no failures any more. */
  async clear(key: string): Promise<void> {
    await this.execute(
      'update "login_attempts" set "failures" = 0, "pending" = case when "pending" > 0 then "pending" - 1 else 0 end where "key" = ?',
      [key],
    );
  }

  /** Keeps the counter (and what it refuses) until `endsAt` at least. */
  async holdUntil(key: string, endsAt: number): Promise<void> {
    await this.execute('update "login_attempts" set "window_ends_at" = ? where "key" = ? and "window_ends_at" < ?', [
      endsAt,
      key,
      endsAt,
    ]);
  }

  /** Adds `change` to the counter (starting it afresh when its window has ended). */
  private async upsert(key: string, change: { failures: number; pending: number }): Promise<Counter> {
    const now = this.ctx.clock.now();
    const ended = 'case when "login_attempts"."window_ends_at" <= ?';
    const [row] = await this.execute(
      'insert into "login_attempts" ("key", "failures", "pending", "window_ends_at") values (?, ?, ?, ?) ' +
        'on conflict ("key") do update set ' +
        `"failures" = ${ended} then excluded."failures" else "login_attempts"."failures" + ? end, ` +
        `"pending" = ${ended} then excluded."pending" ` +
        'when "login_attempts"."pending" + ? > 0 then "login_attempts"."pending" + ? else 0 end, ' +
        `"window_ends_at" = ${ended} then excluded."window_ends_at" else "login_attempts"."window_ends_at" end ` +
        'returning *',
      [
        key,
        change.failures,
        Math.max(0, change.pending),
        now + this.windowMs,
        now,
        change.failures,
        now,
        change.pending,
        change.pending,
        now,
      ],
    );
    return toCounter(row);
  }

  private execute(sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
    return this.ctx.em.getConnection().execute(sql, params as never[], 'all');
  }
}

/** PostgreSQL returns bigint columns as strings. */
function toCounter(row: Record<string, unknown>): Counter {
  return { failures: Number(row.failures), pending: Number(row.pending), windowEndsAt: Number(row.window_ends_at) };
}
