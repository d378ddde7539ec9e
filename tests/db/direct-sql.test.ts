// The hot statements' own connections (server/db/direct-sql.ts), on both databases: many writes
// at once each settle on their own outcome, and a settled write is visible to reads at once
// (on SQLite, writes waiting together share one transaction; ADR 0020).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { openDirectSql, type DirectSql } from '../../server/db/direct-sql';
import { initOrm, type Orm } from '../../server/db/orm';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { directSqlWithOneUser } from '../helpers/databases';

const INSERT_FILE =
  'insert into "files" ("id", "user_id", "original_name", "mime_type", "size", "stored_name", "created_at", "downloads") values (?, ?, ?, ?, ?, ?, ?, 0)';

let orm: Orm | undefined;
let sql: DirectSql | undefined;

afterEach(async () => {
  await sql?.close();
  await orm?.close();
  orm = undefined;
  sql = undefined;
});

describe.each(['sqlite', 'postgresql'] as const)('direct statements on %s', (dialect) => {
  async function open(): Promise<DirectSql> {
    ({ orm, sql } = await directSqlWithOneUser(dialect));
    return sql;
  }

  const insertFile = (db: DirectSql, id: string, userId = 'u1') =>
    db.change(INSERT_FILE, [id, userId, `${id}.txt`, 'text/plain', 3, id, new Date()]);
  const fileIds = async (db: DirectSql) =>
    (await db.select<{ id: string }>('select "id" from "files" order by "id"', [])).map((row) => row.id);

  it('when 60 writes arrive at once, then each settles, and each row can be read as soon as its write has settled', async () => {
    const db = await open();
    const ids = Array.from({ length: 60 }, (_, i) => `file-${String(i).padStart(2, '0')}`);
    const seenAtOnce = await Promise.all(
      ids.map(async (id) => {
        expect(await insertFile(db, id)).toBe(1);
        return (await db.select<{ id: string }>('select "id" from "files" where "id" = ?', [id])).length;
      }),
    );
    expect(seenAtOnce).toEqual(ids.map(() => 1));
    expect(await fileIds(db)).toEqual(ids);
  });

  it('when one of many writes at once is refused (its user does not exist), then it alone fails and every other one is kept', async () => {
    const db = await open();
    const ids = Array.from({ length: 30 }, (_, i) => `file-${String(i).padStart(2, '0')}`);
    const outcomes = await Promise.allSettled(ids.map((id, i) => insertFile(db, id, i === 17 ? 'no-such-user' : 'u1')));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(ids.map((_, i) => (i === 17 ? 'rejected' : 'fulfilled')));
    expect(await fileIds(db)).toEqual(ids.filter((_, i) => i !== 17));
  });

  it('when an update and inserts arrive at once, then each reports its own count of changed rows', async () => {
    const db = await open();
    await insertFile(db, 'counted');
    const [updated, missed, inserted] = await Promise.all([
      db.change('update "files" set "downloads" = "downloads" + 1 where "id" = ?', ['counted']),
      db.change('update "files" set "downloads" = "downloads" + 1 where "id" = ?', ['no-such-file']),
      insertFile(db, 'another'),
    ]);
    expect([updated, missed, inserted]).toEqual([1, 0, 1]);
  });

  // On SQLite, reads run on statements prepared once and kept (ADR 0024).
  it('when the same read runs 50 times at once with different ids, then each gets its own row', async () => {
    const db = await open();
    const ids = Array.from({ length: 50 }, (_, i) => `file-${String(i).padStart(2, '0')}`);
    for (const id of ids) await insertFile(db, id);
    const read = ids.map((id) =>
      db.select<{ originalName: string }>('select "original_name" as "originalName" from "files" where "id" = ?', [id]),
    );
    expect((await Promise.all(read)).map((rows) => rows.map((row) => row.originalName))).toEqual(
      ids.map((id) => [`${id}.txt`]),
    );
  });

  it('when a row changes between two runs of the same read, then the second sees the change', async () => {
    const db = await open();
    await insertFile(db, 'counted');
    const downloads = async () =>
      (await db.select<{ downloads: number }>('select "downloads" from "files" where "id" = ?', ['counted']))[0]
        .downloads;
    expect(await downloads()).toBe(0);
    await db.change('update "files" set "downloads" = "downloads" + 1 where "id" = ?', ['counted']);
    expect(await downloads()).toBe(1);
    await db.change('delete from "files" where "id" = ?', ['counted']);
    expect(await db.select('select "downloads" from "files" where "id" = ?', ['counted'])).toEqual([]);
  });

  it('when a read names a table that is not there, then it fails, and the same read works once the table exists', async () => {
    const db = await open();
    const read = 'select "note" from "notes_for_test" where "id" = ?';
    await expect(db.select(read, [1])).rejects.toThrow(/notes_for_test/);
    await orm!.em.getConnection().execute('create table "notes_for_test" ("id" integer primary key, "note" text)');
    await orm!.em.getConnection().execute('insert into "notes_for_test" ("id", "note") values (1, \'kept\')');
    expect(await db.select(read, [1])).toEqual([{ note: 'kept' }]);
  });
});

describe('direct statements on sqlite, closing', () => {
  it('when the connections close after reads, then no connection is left open (SQLite removes its -wal file)', async () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET });
    const walFile = path.join(dataDir, 'app.db-wal');
    orm = await initOrm(config.database);
    sql = openDirectSql(orm, config.database);
    for (let i = 0; i < 5; i++) await sql.select('select "id" from "users" where "id" = ?', [`u${i}`]);
    await sql.select('select count(*) as "n" from "files"', []);
    expect(fs.existsSync(walFile)).toBe(true);
    await sql.close();
    await orm.close();
    sql = undefined;
    orm = undefined;
    expect(fs.existsSync(walFile)).toBe(false);
  });
});
