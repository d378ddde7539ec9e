// The database fails for real while an upload is being recorded (a trigger aborts the insert):
// the answer is a bare 500 JSON error, and the content already written is removed.
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import {
  expectRowsMatchDisk,
  expectServerAnswers,
  expectUnchanged,
  snapshot,
  uploadSmall,
} from '../helpers/hardening-http';
import { allowErrorLogs } from '../setup/expected-errors';

/** From now on every insert into files fails in the database itself, with the message "boom". */
async function breakFileInserts(app: TestApp): Promise<void> {
  if (app.config.database.dialect === 'sqlite') {
    await app.rows("create trigger hardening_boom before insert on files begin select raise(abort, 'boom'); end");
    return;
  }
  await app.rows(
    "create or replace function hardening_boom() returns trigger language plpgsql as $$ begin raise exception 'boom'; end $$",
  );
  await app.rows('create trigger hardening_boom before insert on files for each row execute function hardening_boom()');
}

async function repairFileInserts(app: TestApp): Promise<void> {
  await app.rows(
    app.config.database.dialect === 'sqlite'
      ? 'drop trigger if exists hardening_boom'
      : 'drop trigger if exists hardening_boom on files',
  );
}

describe('a database error while recording an upload', () => {
  test('when the insert of the record fails, then 500 {"error":"Internal server error"} without a stack, no orphan content, and uploads work once the fault is gone', async ({
    app,
    alice,
  }) => {
    allowErrorLogs(); // the failed insert is logged
    expect((await uploadSmall(app.url, alice.cookie, 'before the fault', 'before.txt')).status).toBe(201);
    const before = await snapshot(app);

    await breakFileInserts(app);
    try {
      const res = await fetch(`${app.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: alice.cookie },
        body: (() => {
          const form = new FormData();
          form.append('file', new Blob([new Uint8Array(256 * 1024).fill(7)]), 'doomed.bin');
          return form;
        })(),
      });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toEqual({ error: 'Internal server error' });
      expect(text).not.toMatch(/boom|at .*\.ts|SQLITE|stack/i);
      await expectUnchanged(app, before);
      await expectServerAnswers(app.url);
    } finally {
      await repairFileInserts(app);
    }

    const after = await uploadSmall(app.url, alice.cookie, 'after the fault', 'after.txt');
    expect(after.status).toBe(201);
    expect(await app.storedFiles()).toEqual([...before.stored, after.json.file!.storedName].sort());
    await expectRowsMatchDisk(app);
  });

  test('when the insert fails for an upload from the page, then a 500 page and no orphan content either', async ({
    app,
    alice,
  }) => {
    allowErrorLogs(); // the failed insert is logged
    const before = await snapshot(app);
    await breakFileInserts(app);
    try {
      const form = new FormData();
      form.append('file', new Blob(['page upload']), 'page.txt');
      const res = await fetch(`${app.url}/upload`, {
        method: 'POST',
        headers: { cookie: alice.cookie },
        body: form,
        redirect: 'manual',
      });
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(text).not.toMatch(/boom|SQLITE|at .*\.ts:\d+/);
      await expectUnchanged(app, before);
      await expectServerAnswers(app.url);
    } finally {
      await repairFileInserts(app);
    }
  });
});
