// The schema brought up to date when the database is opened. The migrations, and MikroORM's
// migrator with umzug and its command-line parser, are loaded only when one is to run: a
// database that already has the latest is checked with one query. Loading them took a
// tenth of every start, and every admin command is a start (ADR 0085).
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, EntityManager } from '@mikro-orm/knex';
import type { DatabaseConfig } from '../config';
import { LATEST_MIGRATION } from './migrations/latest';

type Dialect = DatabaseConfig['dialect'];
/** The ORM as server/db/orm.ts opens it. */
type Orm = MikroORM<AbstractSqlDriver, EntityManager>;

export async function bringSchemaUpToDate(orm: Orm, dialect: Dialect): Promise<void> {
  if (await hasRun(orm, LATEST_MIGRATION[dialect])) return;
  await (await migratorOf(orm, dialect)).up();
}

/** MikroORM's migrator for this database, with its dialect's migrations. */
export async function migratorOf(orm: Orm, dialect: Dialect) {
  const [{ Migrator }, { migrationsFor }] = await Promise.all([
    import('@mikro-orm/migrations'),
    import('./migrations'),
  ]);
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: migrationsFor(dialect) });
  return new Migrator(orm.em);
}

/**
 * Whether the database has run this migration. They run in order and all or nothing, so one
 * that has run the last of the list has run them all. A database without MikroORM's table
 * of migrations (a new one) has run none.
 */
async function hasRun(orm: Orm, migration: string): Promise<boolean> {
  try {
    const rows = await orm.em
      .getConnection()
      .execute('select name from mikro_orm_migrations where name = ?', [migration]);
    return rows.length > 0;
  } catch {
    return false;
  }
}
