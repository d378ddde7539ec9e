// The statements every small request runs (a share link's file, a cookie's session, a limited
// link's count) written out and run on the driver, without MikroORM's query builder or knex's
// pool queue. Measured with 32 clients on SQLite (docs/performance.md, ADR 0020): one lookup
// through the query builder cost about 0.5 ms of CPU; through knex's pool, which lets one
// request at a time have SQLite's single connection, about 0.35 ms; on a connection of its
// own, 0.07 ms.
//
// On SQLite, reads go to a second connection kept for them (`query_only`): in WAL mode it sees
// every committed write at once, never one in progress, so a revoked session or a deleted file
// stops working as soon as that is committed. Each read runs on a statement prepared once on
// that connection and kept (ADR 0024). Writes stay on the pool's connection, the one writer.
// On PostgreSQL both use the pool, as named statements each connection keeps prepared.
import sqlite3 from 'sqlite3';
import type { DatabaseConfig } from '../config';
import type { Orm } from './orm';

/** SQL with `?` placeholders and double-quoted names: the same text runs on both databases. */
type PortableSql = string;
type SqlParam = string | number | Date | null;

export interface DirectSql {
  /** The rows a SELECT returns; only committed data. */
  select<Row>(sql: PortableSql, params: SqlParam[]): Promise<Row[]>;
  /** How many rows an UPDATE or DELETE changed. */
  change(sql: PortableSql, params: SqlParam[]): Promise<number>;
  close(): Promise<void>;
}

export function openDirectSql(orm: Orm, database: DatabaseConfig): DirectSql {
  const pool = orm.em.getKnex().client as unknown as PooledClient;
  return database.dialect === 'sqlite' ? new SqliteDirectSql(pool, database.path) : new PostgresDirectSql(pool);
}

interface PooledClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void>;
}

async function withPooledConnection<T>(pool: PooledClient, use: (connection: unknown) => Promise<T>): Promise<T> {
  // knex's pool: a broken connection is replaced before use, and one a transaction holds is waited for.
  const connection = await pool.acquireConnection();
  try {
    return await use(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

interface QueuedWrite {
  sql: PortableSql;
  params: Array<string | number | null>;
  resolve(changes: number): void;
  reject(error: unknown): void;
}

/**
 * Runs a turn of writes. Several go in one transaction: one commit instead of one each (the
 * WAL written once, readers' caches cleared once), and none is settled before that commit: a
 * caller told its row is written can read it at once on the other connection. Should one of
 * them or the commit fail, the transaction is undone and each write is run again on its own,
 * so that each one's outcome is its own (a row whose user was just deleted fails alone).
 */
async function runTurn(connection: sqlite3.Database, turn: QueuedWrite[]): Promise<void> {
  const together = turn.length > 1 ? await runTogether(connection, turn) : null;
  if (together) {
    for (const [i, write] of turn.entries()) write.resolve(together[i]);
    return;
  }
  for (const write of turn) {
    const outcome = await runWrite(connection, write);
    if ('error' in outcome) write.reject(outcome.error);
    else write.resolve(outcome.changes);
  }
}

/** The writes' changes, all committed in one transaction; null when nothing of them was kept. */
async function runTogether(connection: sqlite3.Database, turn: QueuedWrite[]): Promise<number[] | null> {
  try {
    await execute(connection, 'begin');
  } catch {
    return null;
  }
  const changes: number[] = [];
  for (const write of turn) {
    const outcome = await runWrite(connection, write);
    if ('error' in outcome) break;
    changes.push(outcome.changes);
  }
  if (changes.length === turn.length) {
    try {
      await execute(connection, 'commit');
      return changes;
    } catch {
      // Undone below (a failed commit leaves the transaction open, or already rolled back).
    }
  }
  // "No transaction is active" when SQLite has rolled it back itself: undone all the same.
  await execute(connection, 'rollback').catch(() => undefined);
  return null;
}

function runWrite(connection: sqlite3.Database, write: QueuedWrite): Promise<{ changes: number } | { error: unknown }> {
  return new Promise((done) => {
    connection.run(write.sql, write.params, function (error) {
      done(error ? { error } : { changes: this.changes });
    });
  });
}

function execute(connection: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
}

class SqliteDirectSql implements DirectSql {
  private reader: Promise<SqliteReader> | null = null;
  private readonly writes: QueuedWrite[] = [];
  private writing = false;
  private closed = false;

  constructor(
    private readonly pool: PooledClient,
    private readonly path: string,
  ) {}

  async select<Row>(sql: PortableSql, params: SqlParam[]): Promise<Row[]> {
    if (this.closed) throw new Error('The database connections are closed');
    this.reader ??= this.openReader();
    const reader = await this.reader;
    const statement = await reader.statementFor(sql);
    return new Promise((resolve, reject) => {
      statement.all(asSqliteParams(params), (error, rows) => (error ? reject(error) : resolve(rows as Row[])));
    });
  }

  /**
   * Writes wait in a queue of their own and run on the pool's connection, taken once for all
   * the writes waiting when it is free (a turn, see runTurn), not once per write: with 32
   * uploads at once, knex's pool queue (a timer and a few promises per turn) cost more than
   * the INSERT itself (about 0.35 ms of CPU each).
   */
  change(sql: PortableSql, params: SqlParam[]): Promise<number> {
    return new Promise((resolve, reject) => {
      this.writes.push({ sql, params: asSqliteParams(params), resolve, reject });
      if (this.writes.length === 1 && !this.writing) void this.runWrites();
    });
  }

  private async runWrites(): Promise<void> {
    this.writing = true;
    try {
      while (this.writes.length > 0) {
        // Those waiting now; later ones wait for the next turn, so the ORM's own work gets the connection in between.
        const turn = this.writes.splice(0);
        try {
          await withPooledConnection(this.pool, (connection) => runTurn(connection as sqlite3.Database, turn));
        } catch (error) {
          // The connection could not be had: every write of the turn not yet run fails with it.
          for (const write of turn) write.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const reader = this.reader;
    this.reader = null;
    await (await reader?.catch(() => null))?.close();
  }

  private openReader(): Promise<SqliteReader> {
    const opening = new Promise<SqliteReader>((resolve, reject) => {
      const db = new sqlite3.Database(this.path, sqlite3.OPEN_READWRITE, (error) => {
        if (error) return reject(error);
        // Read-only by promise: a write slipped in here would race the pool's writer.
        db.exec('PRAGMA busy_timeout = 10000; PRAGMA query_only = ON;', (pragmaError) =>
          pragmaError ? reject(pragmaError) : resolve(new SqliteReader(db)),
        );
      });
    });
    // A failed open is tried again by the next read.
    opening.catch(() => {
      if (this.reader === opening) this.reader = null;
    });
    return opening;
  }
}

/**
 * How many prepared copies of each read the reader keeps (ADR 0024). A one-off statement costs
 * two trips to libuv's thread pool (prepare, then run) and a finalize; a kept one, one trip. A
 * statement runs one call at a time (node-sqlite3 queues the next behind it), so with a single
 * copy every read waits for the one before: slower than one-off statements under 32 clients.
 * With four (the pool's threads), 6-10 % less CPU per raw download than one-off statements.
 */
const PREPARED_COPIES = 4;

/** The read-only connection and the statements prepared on it, one set per SQL text. */
class SqliteReader {
  /** Keyed by SQL text: the statements of this code are constants, so the map stays small. */
  private readonly prepared = new Map<PortableSql, { ready: Promise<sqlite3.Statement[]>; next: number }>();

  constructor(private readonly db: sqlite3.Database) {}

  /** One of the prepared copies of `sql`, in turn; prepared on first use. */
  async statementFor(sql: PortableSql): Promise<sqlite3.Statement> {
    let copies = this.prepared.get(sql);
    if (!copies) {
      const entry = { ready: prepareCopies(this.db, sql), next: 0 };
      // A statement that failed to prepare (a table not there yet) is prepared again next time.
      entry.ready.catch(() => {
        if (this.prepared.get(sql) === entry) this.prepared.delete(sql);
      });
      this.prepared.set(sql, entry);
      copies = entry;
    }
    const statements = await copies.ready;
    return statements[copies.next++ % statements.length];
  }

  /** Finalizes every statement (after the calls queued on it), then closes the connection. */
  async close(): Promise<void> {
    const sets = await Promise.all([...this.prepared.values()].map((copies) => copies.ready.catch(() => [])));
    this.prepared.clear();
    await Promise.all(
      sets.flat().map((statement) => new Promise<void>((resolve) => statement.finalize(() => resolve()))),
    );
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
  }
}

/**
 * PREPARED_COPIES statements of `sql`, resolved once all are prepared: a call queued on a
 * statement whose preparation fails is dropped by node-sqlite3 without its callback, so
 * nothing runs on one before. If any fails, those prepared are finalized and it rejects.
 */
async function prepareCopies(db: sqlite3.Database, sql: PortableSql): Promise<sqlite3.Statement[]> {
  const outcomes = await Promise.allSettled(
    Array.from(
      { length: PREPARED_COPIES },
      () =>
        new Promise<sqlite3.Statement>((resolve, reject) => {
          const statement = db.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
        }),
    ),
  );
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (!failed) return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<sqlite3.Statement>).value);
  for (const outcome of outcomes) if (outcome.status === 'fulfilled') outcome.value.finalize();
  throw failed.reason;
}

/** SQLite stores our dates as milliseconds (MikroORM's mapping): bound the same way. */
function asSqliteParams(params: SqlParam[]): Array<string | number | null> {
  return params.map((value) => (value instanceof Date ? value.getTime() : value));
}

interface PostgresConnection {
  query(config: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

class PostgresDirectSql implements DirectSql {
  private readonly prepared = new Map<string, { name: string; text: string }>();

  constructor(private readonly pool: PooledClient) {}

  async select<Row>(sql: PortableSql, params: SqlParam[]): Promise<Row[]> {
    return (await this.run(sql, params)).rows as Row[];
  }

  async change(sql: PortableSql, params: SqlParam[]): Promise<number> {
    return (await this.run(sql, params)).rowCount ?? 0;
  }

  async close(): Promise<void> {}

  private run(sql: PortableSql, params: SqlParam[]) {
    let statement = this.prepared.get(sql);
    if (!statement) {
      let n = 0;
      // The pg driver prepares a named statement once per connection and reuses it.
      statement = { name: `direct_${this.prepared.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
      this.prepared.set(sql, statement);
    }
    const named = statement;
    return withPooledConnection(this.pool, (connection) =>
      (connection as PostgresConnection).query({ ...named, values: params }),
    );
  }
}
