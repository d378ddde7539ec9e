// The entities and the migrations describe the same schema, on both databases:
// after the migrations, MikroORM's schema diff against the entities is empty. Were they to
// drift, `migration:create` would write a migration that drops an index, a table or a key.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { migratorOf } from '../../server/db/migrate';
import { initOrm } from '../../server/db/orm';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { freshDatabaseUrl } from '../helpers/databases';

describe.each(['sqlite', 'postgresql'] as const)('the schema on %s', (dialect) => {
  it('when the migrations have run, then the entities need no further change (empty schema diff), and running them again changes nothing', async () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      DATABASE_URL: await freshDatabaseUrl(dialect),
      SESSION_SECRET: TEST_SECRET,
    });
    const orm = await initOrm(config.database);
    try {
      expect(await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).toBe('');
      expect(await (await migratorOf(orm, dialect)).getPendingMigrations()).toEqual([]);
    } finally {
      await orm.close();
    }
    const again = await initOrm(config.database);
    try {
      expect(await again.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).toBe('');
    } finally {
      await again.close();
    }
  });

  it('when a user is removed, then their files and sessions go with them (the foreign keys cascade)', async () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      DATABASE_URL: await freshDatabaseUrl(dialect),
      SESSION_SECRET: TEST_SECRET,
    });
    const orm = await initOrm(config.database);
    try {
      const sql = orm.em.getConnection();
      const now = new Date();
      await orm.em
        .fork()
        .insert('User', { id: 'u1', username: 'u1', usernameKey: 'u1', passwordHash: 'x', createdAt: now });
      await orm.em.fork().insert('File', {
        id: 'f1',
        userId: 'u1',
        originalName: 'a',
        mimeType: 'text/plain',
        size: 5 * 1024 ** 3,
        storedName: 'f1',
        createdAt: now,
      });
      await orm.em.fork().insert('Session', { id: 's1', userId: 'u1', expiresAt: now, createdAt: now });
      expect((await sql.execute('select size from files'))[0]).toEqual({
        size: dialect === 'postgresql' ? String(5 * 1024 ** 3) : 5 * 1024 ** 3,
      });
      await sql.execute("delete from users where id = 'u1'");
      expect(await sql.execute('select id from files')).toEqual([]);
      expect(await sql.execute('select id from sessions')).toEqual([]);
    } finally {
      await orm.close();
    }
  });
});
