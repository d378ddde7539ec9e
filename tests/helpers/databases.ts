// Fresh databases for tests: a new SQLite file, or a new database on the run's PostgreSQL
// cluster (tests/global-setup.ts), so that every test app starts empty.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDirectSql, type DirectSql } from '../../server/db/direct-sql';
import { initOrm, type Orm } from '../../server/db/orm';
import { TEST_SECRET, tempDir } from './app';

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

/** A fresh, migrated database with one user, `u1`, and the service's direct statements on it; the caller closes both. */
export async function directSqlWithOneUser(dialect: 'sqlite' | 'postgresql'): Promise<{ orm: Orm; sql: DirectSql }> {
  const config = loadConfig({
    DATA_DIR: tempDir(),
    DATABASE_URL: await freshDatabaseUrl(dialect),
    SESSION_SECRET: TEST_SECRET,
  });
  const orm = await initOrm(config.database);
  await orm.em
    .fork()
    .insert('User', { id: 'u1', username: 'u1', usernameKey: 'u1', passwordHash: 'x', createdAt: new Date() });
  return { orm, sql: openDirectSql(orm, config.database) };
}
