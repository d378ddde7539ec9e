import fs from 'node:fs';
import { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, EntityManager } from '@mikro-orm/knex';
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config';
import { bringSchemaUpToDate } from './migrate';
import { mikroOrmConfig } from './mikro-orm.config';

/** The unit of work services are handed; what it offers beyond the ORM stays in server/db/ (ADR 0033). */
export type { EntityManager };

/** SQLite or PostgreSQL: services see the SQL driver's common surface only. */
export type Orm = MikroORM<AbstractSqlDriver, EntityManager>;

/** Opens the database and brings its schema up to date (migrations are idempotent). */
export async function initOrm(database: DatabaseConfig, log?: Logger): Promise<Orm> {
  if (database.dialect === 'sqlite') restrictToOwner(database.path);
  const orm = (await MikroORM.init(await mikroOrmConfig(database, log))) as unknown as Orm;
  try {
    await bringSchemaUpToDate(orm, database.dialect);
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}

/**
 * The database holds password hashes: readable by its owner only (0600). SQLite gives its
 * -wal and -shm files the database file's mode, so creating the file first is enough; an
 * existing file from an older version is narrowed too.
 */
function restrictToOwner(databasePath: string): void {
  const handle = fs.openSync(databasePath, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  try {
    if ((fs.fstatSync(handle).mode & 0o077) !== 0) fs.fchmodSync(handle, 0o600);
  } catch {
    // Not ours to change (another owner): it keeps the mode its owner gave it.
  } finally {
    fs.closeSync(handle);
  }
}
