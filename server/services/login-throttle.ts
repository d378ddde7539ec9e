// Slows and then refuses repeated failed logins, per username and per client address
// (CONTRACT §7, OWASP Authentication cheat sheet). Counters live in the database through
// rate-limiter-flexible's SQLite store, so a restart or a second instance does not reset them.
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterRes, RateLimiterSQLite } from 'rate-limiter-flexible';
import type { EntityManager } from '@mikro-orm/sqlite';
import { AppError } from '../errors';

const WINDOW_SECONDS = 15 * 60;
/** Failed logins for one username before it is refused for the rest of the window. */
export const MAX_FAILURES_PER_USERNAME = 5;
/** Failed logins from one address (many usernames: credential stuffing). */
export const MAX_FAILURES_PER_ADDRESS = 30;
/** From this failure on, each further failure is answered a little later. */
const SLOW_DOWN_AFTER = 2;
const SLOW_DOWN_STEP_MS = 250;

export class LoginThrottle {
  private readonly byUsername: RateLimiterSQLite;
  private readonly byAddress: RateLimiterSQLite;

  constructor(knex: Knex) {
    const common = {
      storeClient: sqlite3PoolOf(knex),
      storeType: 'knex',
      tableName: 'login_throttle',
      tableCreated: true, // by a migration
      duration: WINDOW_SECONDS,
      blockDuration: WINDOW_SECONDS,
    };
    this.byUsername = new RateLimiterSQLite({ ...common, keyPrefix: 'user', points: MAX_FAILURES_PER_USERNAME });
    this.byAddress = new RateLimiterSQLite({ ...common, keyPrefix: 'addr', points: MAX_FAILURES_PER_ADDRESS });
  }

  /** Throws TOO_MANY_REQUESTS (with Retry-After) while either counter is used up. */
  async check(username: string, address: string | null): Promise<void> {
    const checks: Array<[RateLimiterSQLite, string, number]> = [[this.byUsername, username.toLowerCase(), MAX_FAILURES_PER_USERNAME]];
    if (address) checks.push([this.byAddress, address, MAX_FAILURES_PER_ADDRESS]);
    for (const [limiter, key, max] of checks) {
      const state = await limiter.get(key);
      if (state && state.consumedPoints >= max) {
        throw new AppError(
          'TOO_MANY_REQUESTS',
          'Too many failed login attempts. Please wait and try again later.',
          Math.max(1, Math.ceil(state.msBeforeNext / 1000)),
        );
      }
    }
  }

  /** Counts one failure, then waits a little longer with each failure past the first few. */
  async recordFailure(username: string, address: string | null): Promise<void> {
    const failures = await consume(this.byUsername, username.toLowerCase());
    if (address) await consume(this.byAddress, address);
    if (failures > SLOW_DOWN_AFTER) await sleep(Math.min(1000, (failures - SLOW_DOWN_AFTER) * SLOW_DOWN_STEP_MS));
  }

  /** A successful login clears that username's failures (not the address's). */
  async recordSuccess(username: string): Promise<void> {
    await this.byUsername.delete(username.toLowerCase());
  }
}

/** Consumes one point; the limiter rejects with its state once the points are used up. */
async function consume(limiter: RateLimiterSQLite, key: string): Promise<number> {
  try {
    return (await limiter.consume(key)).consumedPoints;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return rejection.consumedPoints;
    throw rejection;
  }
}

/**
 * rate-limiter-flexible recognises a knex pool by its `client.config.client` name, which
 * MikroORM sets to its own dialect class: hand it the same pool under the name it expects.
 * It only ever acquires and releases raw sqlite3 connections through it.
 */
function sqlite3PoolOf(knex: Knex) {
  const pool = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): unknown };
  return {
    raw: knex.raw.bind(knex),
    client: {
      config: { client: 'sqlite3' },
      acquireConnection: () => pool.acquireConnection(),
      releaseConnection: (connection: unknown) => pool.releaseConnection(connection),
    },
  };
}

type Knex = ReturnType<ReturnType<EntityManager['getConnection']>['getKnex']>;
const throttles = new WeakMap<Knex, LoginThrottle>();

/** The throttle of the database this unit of work talks to (one per connection pool). */
export function loginThrottleFor(em: EntityManager): LoginThrottle {
  const knex = em.getConnection().getKnex();
  let throttle = throttles.get(knex);
  if (!throttle) {
    throttle = new LoginThrottle(knex);
    throttles.set(knex, throttle);
  }
  return throttle;
}
