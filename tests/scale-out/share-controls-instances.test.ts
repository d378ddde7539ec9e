// Share controls with two instances on one PostgreSQL database and one bucket (ADR 0014):
// a download limit holds across both, both sweeping the same expired links at once removes
// each exactly once, leaving the live ones alone, and a visitor's share page kept on either
// (ADR 0051) follows every change made on the other at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, TestClock, type TestApp } from '../helpers/app';
import { poll } from '../helpers/multipart';
import { postgresS3Env } from '../helpers/test-backend';
import { startSharingApp, type SharingApp } from '../sharing/support';

const clock = new TestClock();
let a: SharingApp;
let b: TestApp;

beforeAll(async () => {
  const shared = await postgresS3Env();
  a = await startSharingApp(shared, { clock, expirySweepEveryMs: 50 });
  b = await startApp({ ...shared, DATA_DIR: tempDir() }, { clock, expirySweepEveryMs: 50 });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe('share controls across two instances', () => {
  it('when 3N downloads of a link limited to N are spread over both instances at once, then exactly N get the content', async () => {
    const { file } = await a.upload('limited across instances', 'limited.txt', 'text/plain', { maxDownloads: '4' });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${i % 2 ? a.url : b.url}/f/${file.id}/raw`).then(async (res) => ({
          status: res.status,
          body: await res.text(),
        })),
      ),
    );
    const served = results.filter((res) => res.status === 200);
    expect(served).toHaveLength(4);
    for (const res of served) expect(res.body).toBe('limited across instances');
    // The rest are refused: 410, or 404 once a sweep (every 50 ms here) has removed the used-up file.
    expect(results.filter((res) => res.status === 410 || res.status === 404)).toHaveLength(8);
  });

  it('when links expire and both instances sweep every 50 ms, then every expired file goes (row and object) and the live ones stay', async () => {
    const expiring = await Promise.all(
      Array.from({ length: 30 }, (_, i) => a.upload(`expiring ${i}`, `e${i}.txt`, 'text/plain', { expiresIn: '600' })),
    );
    const live = await a.upload('live', 'live.txt', 'text/plain', { expiresIn: '86400' });
    clock.advance(20 * 60_000);
    // Only this test's files: a used-up link of another stays while its claims last (ADR 0056).
    const expiredNames = new Set(expiring.map(({ file }) => file.storedName));
    const stored = async () =>
      (await a.storedFiles()).filter((name) => expiredNames.has(name) || name === live.file.storedName);
    expect(await poll(async () => (await stored()).length === 1, 10_000)).toBe(true);
    expect(await stored()).toEqual([live.file.storedName]);
    const ids = [...expiring.map(({ file }) => file.id), live.file.id];
    const rows = await a.rows(`select id from files where id in (${ids.map(() => '?').join(', ')})`, ids);
    expect(rows.map((row) => row.id)).toEqual([live.file.id]);
    for (const { file } of expiring.slice(0, 3)) expect((await fetch(`${b.url}/f/${file.id}/raw`)).status).toBe(404);
  });

  it('when both instances have drawn a visitor’s share page and the owner renames, counts down and protects the file on one, then the other shows each change at the next look', async () => {
    const uploaded = await a.upload('kept page', 'before.txt', 'text/plain', { maxDownloads: '3' });
    const look = async (app: TestApp) => {
      const res = await fetch(`${app.url}/f/${uploaded.file.id}`);
      return { status: res.status, html: await res.text() };
    };
    for (const app of [a, b, a, b]) expect((await look(app)).html).toContain('before.txt');
    const patch = (body: Record<string, unknown>) =>
      fetch(`${a.url}/api/v1/files/${uploaded.file.id}`, {
        method: 'PATCH',
        headers: { cookie: a.cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await patch({ originalName: 'after.txt' })).status).toBe(200);
    const renamed = await look(b);
    expect(renamed.html).toContain('after.txt');
    expect(renamed.html).toContain('3 downloads left');
    expect((await fetch(`${a.url}/f/${uploaded.file.id}/raw`)).status).toBe(200);
    expect((await look(b)).html).toContain('2 downloads left');
    expect((await patch({ password: 'open sesame' })).status).toBe(200);
    const locked = await look(b);
    expect(locked.status).toBe(401);
    expect(locked.html).not.toContain('after.txt');
  });
});
