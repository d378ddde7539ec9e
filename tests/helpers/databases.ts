// Fresh databases for tests: a new SQLite file, or a new database on the run's PostgreSQL
// cluster (tests/global-setup.ts), so that every test app starts empty.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDirectSql, type DirectSql } from '../../server/db/direct-sql';
import { initOrm, type Orm } from '../../server/db/orm';
import { TEST_SECRET, tempDir } from './app';

/**
 * The migrated, empty PostgreSQL database of the run (tests/global-setup.ts) that an app's fresh
 * database is copied from: bringing each new database up through every migration took the most
 * of an app's start.
 */
const POSTGRES_TEMPLATE = 't_migrated_template';

/** Creates the database `name` on the cluster at `admin`, empty or as a copy of `template`. */
async function createPostgresDatabase(admin: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client(`${admin}/postgres`);
  await client.connect();
  try {
    await client.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await client.end();
  }
  return `${admin}/${name}`;
}

const newDatabaseName = () => `t_${randomBytes(8).toString('hex')}`;

/** A DATABASE_URL for a database nobody has used yet. */
export async function freshDatabaseUrl(dialect: 'sqlite' | 'postgresql'): Promise<string> {
  if (dialect === 'sqlite') return `file:${path.join(tempDir('fs-db-'), 'app.db')}`;
  return createPostgresDatabase(inject('postgresUrl'), newDatabaseName());
}

/** A DATABASE_URL for a new PostgreSQL database with the schema of today's migrations and no rows. */
export function freshMigratedPostgresUrl(): Promise<string> {
  return createPostgresDatabase(inject('postgresUrl'), newDatabaseName(), POSTGRES_TEMPLATE);
}

/** Makes the run's templates: a migrated SQLite file (its path returned) and POSTGRES_TEMPLATE. */
export async function makeMigratedTemplates(postgresUrl: string): Promise<string> {
  const config = loadConfig({ DATA_DIR: tempDir('fs-template-'), SESSION_SECRET: TEST_SECRET });
  await (await initOrm(config.database)).close();
  if (config.database.dialect !== 'sqlite') throw new Error('the default database is SQLite');
  // Closed cleanly, SQLite has folded its write-ahead log into the file: the file is all of it.
  if (fs.existsSync(`${config.database.path}-wal`)) throw new Error('the SQLite template kept a write-ahead log');
  const postgres = loadConfig({
    DATA_DIR: tempDir('fs-template-'),
    DATABASE_URL: await createPostgresDatabase(postgresUrl, POSTGRES_TEMPLATE),
    SESSION_SECRET: TEST_SECRET,
  });
  await (await initOrm(postgres.database)).close();
  return config.database.path;
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
