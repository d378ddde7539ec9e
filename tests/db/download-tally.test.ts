// Download counts of links without a limit, kept in memory and added to their rows in a few
// statements a flush (instance/download-tally.ts), on both databases.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { DirectSql } from '../../server/db/direct-sql';
import type { Orm } from '../../server/db/orm';
import { createLogger } from '../../server/utilities/logger';
import { DownloadTally } from '../../server/instance/download-tally';
import { directSqlWithOneUser } from '../helpers/databases';

const INSERT_FILE =
  'insert into "files" ("id", "user_id", "original_name", "mime_type", "size", "stored_name", "created_at", "downloads") values (?, ?, ?, ?, ?, ?, ?, ?)';

let orm: Orm | undefined;
let sql: DirectSql | undefined;

afterEach(async () => {
  await sql?.close();
  await orm?.close();
  orm = undefined;
  sql = undefined;
});

/** A logger whose lines are kept, to read what the tally reported. */
function keptLog() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

describe.each(['sqlite', 'postgresql'] as const)('download tally on %s', (dialect) => {
  async function open(): Promise<DirectSql> {
    ({ orm, sql } = await directSqlWithOneUser(dialect));
    return sql;
  }

  const downloadsById = async (db: DirectSql) =>
    Object.fromEntries(
      (await db.select<{ id: string; downloads: number | string }>('select "id", "downloads" from "files"', [])).map(
        (row) => [row.id, Number(row.downloads)],
      ),
    );

  it('when 700 files were downloaded between two flushes (some several times, one deleted meanwhile), then each row gains exactly its own count', async () => {
    const db = await open();
    // 700 files: more than the largest statement holds, and a remainder that needs every smaller size.
    const ids = Array.from({ length: 700 }, (_, i) => `file-${String(i).padStart(3, '0')}`);
    for (const [i, id] of ids.entries())
      await db.change(INSERT_FILE, [id, 'u1', `${id}.txt`, 'text/plain', 3, id, new Date(), i % 5]);
    const tally = new DownloadTally(db, keptLog().log);
    ids.forEach((id, i) => {
      for (let n = 0; n <= i % 3; n++) tally.add(id);
    });
    tally.add('file-gone');
    await tally.flush();
    const expected = Object.fromEntries(ids.map((id, i) => [id, (i % 5) + (i % 3) + 1]));
    expect(await downloadsById(db)).toEqual(expected);

    // Counted once: a second flush with nothing new adds nothing; new downloads add only themselves.
    tally.add('file-007');
    await tally.flush();
    await tally.flush();
    expect(await downloadsById(db)).toEqual({ ...expected, 'file-007': expected['file-007'] + 1 });
  });

  it('when the counts cannot be written, then a warning is logged and they are written by the next flush that can', async () => {
    const db = await open();
    await db.change(INSERT_FILE, ['kept', 'u1', 'kept.txt', 'text/plain', 3, 'kept', new Date(), 0]);
    const { log, lines } = keptLog();
    const tally = new DownloadTally(db, log);
    for (let n = 0; n < 3; n++) tally.add('kept');
    // The table is away for the first flush: the statement fails.
    const connection = orm!.em.getConnection();
    await connection.execute('alter table "files" rename to "files_away"');
    await tally.flush();
    expect(lines.map((line) => line.msg)).toContain('download counts not written; they are kept for the next try');
    await connection.execute('alter table "files_away" rename to "files"');
    tally.add('kept');
    await tally.flush();
    expect(await downloadsById(db)).toEqual({ kept: 4 });
  });
});
