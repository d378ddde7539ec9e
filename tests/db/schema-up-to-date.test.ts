// Opening a database brings its schema up to date: one that has run the latest migration is
// left as it is without loading the migrations; one that has not runs what it lacks (ADR 0085).
import { MikroORM } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { migratorOf } from '../../server/db/migrate';
import { migrationsFor } from '../../server/db/migrations';
import { LATEST_MIGRATION } from '../../server/db/migrations/latest';
import { mikroOrmConfig } from '../../server/db/mikro-orm.config';
import { initOrm, type Orm } from '../../server/db/orm';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { freshDatabaseUrl } from '../helpers/databases';

describe.each(['sqlite', 'postgresql'] as const)('the schema on %s', (dialect) => {
  it('when the list of migrations is read, then LATEST_MIGRATION names its last', () => {
    expect(LATEST_MIGRATION[dialect]).toBe(migrationsFor(dialect).at(-1)?.name);
  });

  it('when a database has run every migration but the last, then opening it runs the last, and the schema is what the entities say', async () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      DATABASE_URL: await freshDatabaseUrl(dialect),
      SESSION_SECRET: TEST_SECRET,
    });
    const list = migrationsFor(dialect);
    const older = (await MikroORM.init(await mikroOrmConfig(config.database))) as unknown as Orm;
    try {
      await (await migratorOf(older, dialect)).up({ to: list.at(-2)?.name });
      expect((await (await migratorOf(older, dialect)).getPendingMigrations()).map((m) => m.name)).toEqual([
        LATEST_MIGRATION[dialect],
      ]);
    } finally {
      await older.close();
    }

    const orm = await initOrm(config.database);
    try {
      expect(await (await migratorOf(orm, dialect)).getPendingMigrations()).toEqual([]);
      expect(await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).toBe('');
    } finally {
      await orm.close();
    }
  });
});
