// Reads (and, for fault tests, changes) a test app's database through a connection of its own:
// what another process sees, which is only what was committed. PostgreSQL's 64-bit integers
// (count(*), sizes, times in ms) come back as numbers, as SQLite gives them, so that tests
// compare rows the same way on both.
import pg from 'pg';
import sqlite3 from 'sqlite3';
import type { DatabaseConfig } from '../../server/config';

export type Row = Record<string, unknown>;

function readCommitted(databasePath: string, sql: string, params: unknown[] = []): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    const reader = new sqlite3.Database(databasePath, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError);
      reader.all(sql, params, (error, rows: Row[]) => reader.close(() => (error ? reject(error) : resolve(rows))));
    });
  });
}

const INT8 = 20;
const NUMERIC = 1700;
const numbers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 || oid === NUMERIC
      ? (text: string) => Number(text)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * Runs `statements` in order on one PostgreSQL connection (settings such as
 * session_replication_role last for the connection) and returns the last one's rows.
 * `?` placeholders are numbered for PostgreSQL, as knex does for the service.
 */
export async function queryPostgres(
  url: string,
  statements: Array<{ sql: string; params?: unknown[] }>,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, types: numbers });
  await client.connect();
  try {
    let rows: Row[] = [];
    for (const { sql, params = [] } of statements) {
      let index = 0;
      rows = (
        await client.query(
          sql.replace(/\?/g, () => `$${++index}`),
          params,
        )
      ).rows as Row[];
    }
    return rows;
  } finally {
    await client.end();
  }
}

/** The committed rows of `sql` in the database of `config`, whichever dialect it is. */
export function readCommittedRows(database: DatabaseConfig, sql: string, params: unknown[] = []): Promise<Row[]> {
  return database.dialect === 'sqlite'
    ? readCommitted(database.path, sql, params)
    : queryPostgres(database.url, [{ sql, params }]);
}
