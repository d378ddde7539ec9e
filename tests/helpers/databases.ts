// Fresh databases for tests: a new SQLite file, or a new database on the run's PostgreSQL
// cluster (tests/global-setup.ts), so that every test app starts empty.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { tempDir } from './app';

/** A DATABASE_URL for a database nobody has used yet. */
export async function freshDatabaseUrl(dialect: 'sqlite' | 'postgresql'): Promise<string> {
  if (dialect === 'sqlite') return `file:${path.join(tempDir('fs-db-'), 'app.db')}`;
  const admin = inject('postgresUrl');
  const name = `t_${randomBytes(8).toString('hex')}`;
  const client = new pg.Client(`${admin}/postgres`);
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return `${admin}/${name}`;
}
