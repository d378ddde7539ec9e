// SQLite under concurrency: many uploads, deletes and logins at once never surface as
// SQLITE_BUSY or a 500, and the rows still match the content on disk afterwards.
import { DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { test as base, describe, expect, registeredUser } from '../helpers/fixtures';
import { expectRowsMatchDisk, expectServerAnswers, uploadSmall } from '../helpers/hardening-http';

const test = base.extend('carol', { scope: 'file' }, ({ app }) => registeredUser(app, 'carol'));
const cookies: Record<string, string> = {};

test.beforeAll(async ({ alice, bob, carol }) => {
  for (const user of [alice, bob, carol]) cookies[user.username] = user.cookie;
});

function deleteFile(app: TestApp, cookie: string, id: string) {
  return fetch(`${app.url}/api/v1/files/${id}`, { method: 'DELETE', headers: { cookie } });
}

describe('SQLite under concurrency', () => {
  test('when two users run 30 uploads and 20 deletes of other files all at once, then every one succeeds and rows match the files on disk', {
    timeout: 120_000,
  }, async ({ app }) => {
    const users = ['alice', 'bob'];
    const existing: Record<string, string[]> = { alice: [], bob: [] };
    for (const user of users) {
      for (let i = 0; i < 10; i++) {
        const uploaded = await uploadSmall(app.url, cookies[user], `${user} old ${i}`, `old-${i}.txt`);
        expect(uploaded.status).toBe(201);
        existing[user].push(uploaded.json.file!.id);
      }
    }

    const uploads = Array.from({ length: 30 }, async (_, i) => {
      const user = users[i % 2];
      const bytes = new Uint8Array(16 * 1024 + i * 1024).fill(65 + (i % 26));
      const res = await uploadSmall(app.url, cookies[user], bytes, `new-${i}.bin`);
      return { kind: 'upload', status: res.status, body: res.json };
    });
    const deletes = users.flatMap((user) =>
      existing[user].map(async (id) => {
        const res = await deleteFile(app, cookies[user], id);
        return { kind: 'delete', status: res.status, body: await res.json() };
      }),
    );
    const started = performance.now();
    const results = await Promise.all([...uploads, ...deletes]);
    const elapsed = performance.now() - started;
    const statuses = results.map((result) => `${result.kind} ${result.status}`);
    console.log(
      `[hardening] ${uploads.length} concurrent uploads + ${deletes.length} concurrent deletes held in ${elapsed.toFixed(0)} ms`,
    );

    expect(statuses.filter((s) => s === 'upload 201')).toHaveLength(30);
    expect(statuses.filter((s) => s === 'delete 200')).toHaveLength(20);
    expect(JSON.stringify(results)).not.toMatch(/SQLITE_BUSY|Internal server error/);

    for (const user of users) {
      const listed = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: cookies[user] } });
      const { files } = (await listed.json()) as { files: Array<{ id: string; originalName: string }> };
      expect(files).toHaveLength(15);
      expect(files.every((file) => file.originalName.startsWith('new-'))).toBe(true);
    }
    expect(await app.rows('select count(*) as n from files')).toEqual([{ n: 30 }]);
    await expectRowsMatchDisk(app);
    await expectServerAnswers(app.url);
  });

  test('when 15 logins for three users arrive at once, then all succeed with a working cookie', {
    timeout: 120_000,
  }, async ({ app }) => {
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        fetch(`${app.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: ['alice', 'bob', 'carol'][i % 3], password: DEFAULT_PASSWORD }),
        }),
      ),
    );
    console.log(`[hardening] 15 concurrent logins held in ${(performance.now() - started).toFixed(0)} ms`);
    expect(results.map((res) => res.status)).toEqual(Array(15).fill(200));
    const cookie = results[14].headers.getSetCookie()[0].split(';')[0];
    const listed = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    expect(await app.rows('select count(*) as n from sessions')).toEqual([{ n: 3 + 15 }]);
    await expectServerAnswers(app.url);
  });

  test('when one file is deleted 10 times at once, then exactly one 200 and nine 404, never a 500', {
    timeout: 60_000,
  }, async ({ app }) => {
    const uploaded = await uploadSmall(app.url, cookies.carol, 'delete me once', 'once.txt');
    expect(uploaded.status).toBe(201);
    const rowsBefore = await app.rows('select count(*) as n from files');

    const results = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await deleteFile(app, cookies.carol, uploaded.json.file!.id);
        return { status: res.status, body: await res.json() };
      }),
    );
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(404)]);
    expect(
      results.filter((result) => result.status === 404).every((result) => result.body.error === 'File not found'),
    ).toBe(true);
    expect(await app.rows('select count(*) as n from files')).toEqual([{ n: Number(rowsBefore[0].n) - 1 }]);
    expect(await app.storedFiles()).not.toContain(uploaded.json.file!.storedName);
    await expectRowsMatchDisk(app);
    await expectServerAnswers(app.url);
  });
});
