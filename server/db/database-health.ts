// Whether the database still takes and commits writes (/healthz), and recovery
// when it does not: the pooled connections are thrown away and opened afresh. A connection
// that is left inside a transaction (or closed under us) otherwise keeps answering reads while
// every write it takes is never committed (uploads would answer 201 and then be lost).
import type { Logger } from 'pino';
import type { Orm } from './orm';

/** How long the probe may wait for a pooled connection before the database counts as unavailable. */
const ACQUIRE_TIMEOUT_MS = 5_000;

/**
 * One write in its own transaction: BEGIN fails on a connection that is already inside one,
 * and the write fails on a read-only or locked database. Standard SQL for SQLite and PostgreSQL.
 */
export async function probeDatabaseWrite(orm: Orm): Promise<void> {
  const knex = orm.em.getConnection().getKnex();
  await withTimeout(
    knex.transaction(async (trx) => {
      await trx.raw(
        'insert into "health_probe" ("id", "checked_at") values (1, ?) on conflict ("id") do update set "checked_at" = excluded."checked_at"',
        [Date.now()],
      );
    }),
    ACQUIRE_TIMEOUT_MS,
  );
}

interface PooledConnection {
  /** knex's mark for a connection to destroy instead of reusing (checked when it is next acquired). */
  __knex__disposed?: string;
}

interface KnexClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PooledConnection): Promise<unknown>;
  pool?: { numFree(): number } | null;
}

/**
 * Marks every idle pooled connection as disposed, so that the pool closes it (a transaction
 * left open on it is rolled back) and opens a fresh one for the next query. Connections busy
 * with a request are left alone; the next failing probe gets them.
 */
export async function replacePooledConnections(orm: Orm, log: Logger, reason: string): Promise<void> {
  let client: KnexClient;
  try {
    client = orm.em.getConnection().getKnex().client as unknown as KnexClient;
  } catch {
    return; // closed: nothing to replace
  }
  const idle = client.pool?.numFree() ?? 0;
  const taken: PooledConnection[] = [];
  for (let i = 0; i < Math.max(1, idle); i++) {
    const acquiring = client.acquireConnection();
    try {
      taken.push(await withTimeout(acquiring, ACQUIRE_TIMEOUT_MS));
    } catch {
      // No connection to be had now (pool closed, or all busy): one that turns up late goes back.
      acquiring.then(
        (late) => client.releaseConnection(late),
        () => undefined,
      );
      break;
    }
  }
  for (const connection of taken) {
    connection.__knex__disposed = reason;
    await client.releaseConnection(connection);
  }
  if (taken.length) log.warn({ replaced: taken.length, reason }, 'database connections replaced');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
