// Reads a SQLite database through a connection of its own, read-only: what another process
// sees, which is only what was committed.
import sqlite3 from 'sqlite3';

export function readCommitted(databasePath: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const reader = new sqlite3.Database(databasePath, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError);
      reader.all(sql, params, (error, rows: Array<Record<string, unknown>>) => reader.close(() => (error ? reject(error) : resolve(rows))));
    });
  });
}

/** The SQLite file of a test app (these tests read it from outside). */
export function sqlitePath(app: { config: { database: { dialect: string; path?: string } } }): string {
  if (app.config.database.dialect !== 'sqlite' || !app.config.database.path) throw new Error('this test reads a SQLite file');
  return app.config.database.path;
}
