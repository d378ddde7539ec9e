import { fileForm, type TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';

const uploadedIds: string[] = [];

test.beforeAll(async ({ alice, bob }) => {
  for (let i = 0; i < 7; i++) uploadedIds.push((await alice.upload(`file ${i}`, `f${i}.txt`, 'text/plain')).file.id);
  await bob.upload('b', 'b.txt');
});

async function page(app: TestApp, query: string, cookie: string) {
  const res = await fetch(`${app.url}/api/v1/files?${query}`, { headers: { cookie } });
  return { status: res.status, body: await res.json() };
}

describe('GET /api/v1/files?limit=&cursor=', () => {
  test('when pages are followed by their cursors, then together they hold every file of the caller exactly once, newest first', async ({
    app,
    alice,
  }) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body } = await page(app, `limit=3${cursor ? `&cursor=${cursor}` : ''}`, alice.cookie);
      expect(status).toBe(200);
      expect(body.files.length).toBeLessThanOrEqual(3);
      seen.push(...body.files.map((file: { id: string }) => file.id));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    const { body: whole } = await page(app, '', alice.cookie);
    expect(seen).toEqual(whole.files.map((file: { id: string }) => file.id));
    expect([...seen].sort()).toEqual([...uploadedIds].sort());
  });

  test('when the last page is reached, then nextCursor is null', async ({ app, alice }) => {
    const { body } = await page(app, 'limit=100', alice.cookie);
    expect(body.files).toHaveLength(7);
    expect(body.nextCursor).toBeNull();
  });

  test('when no limit is given, then the answer keeps the plain {files} shape', async ({ app, alice }) => {
    const { body } = await page(app, '', alice.cookie);
    expect(Object.keys(body)).toEqual(['files']);
  });

  test.for(['limit=0', 'limit=abc', 'limit=1001', 'limit=2&cursor=not-a-cursor', 'limit=1.5'])(
    'when the query is %s, then it answers 400 with an error',
    async (query, { app, alice }) => {
      const { status, body } = await page(app, query, alice.cookie);
      expect(status).toBe(400);
      expect(body).toEqual({ error: expect.any(String) });
    },
  );

  test("when another user follows alice's cursor, then they still only see their own files", async ({
    app,
    alice,
    bob,
  }) => {
    const { body: first } = await page(app, 'limit=1', alice.cookie);
    const { status, body } = await page(app, `limit=10&cursor=${first.nextCursor}`, bob.cookie);
    expect(status).toBe(200);
    expect(body.files.every((file: { originalName: string }) => file.originalName === 'b.txt')).toBe(true);
  });
});

describe('the whole list and its pages describe files alike', () => {
  test('when files with odd names and every share setting are listed whole, then each object equals the one its page and its upload gave', async ({
    app,
  }) => {
    await app.createUser('carol');
    const carol = await app.login('carol');
    const uploads: { name: string; type: string; fields: Record<string, string> }[] = [
      { name: 'quote " back\\slash.txt', type: 'text/plain', fields: {} },
      {
        name: 'tab\there ünïcödé 漢字 😀.bin',
        type: 'application/octet-stream',
        fields: { expiresIn: '3600', maxDownloads: '7' },
      },
      {
        name: '<script>alert(1)</script>.html',
        type: 'text/html',
        fields: { password: 'a long enough secret', expiresAt: '2099-01-02T03:04:05.678Z' },
      },
      { name: 'plain.txt', type: 'text/plain', fields: { maxDownloads: '1' } },
    ];
    const made = [];
    for (const { name, type, fields } of uploads) {
      const res = await fetch(`${app.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: carol },
        body: fileForm(`content of ${name}`, name, type, 'file', fields),
      });
      expect(res.status).toBe(201);
      made.push((await res.json()).file);
    }
    const whole = await page(app, '', carol);
    const paged = await page(app, 'limit=100', carol);
    expect(whole.status).toBe(200);
    expect(whole.body.files).toEqual(paged.body.files);
    // A listed file also says whether it came through a file request (none of these did).
    expect(whole.body.files).toEqual(
      [...made].reverse().map((file) => ({ ...file, request: null, receivedFrom: null })),
    );
    expect(whole.body.files.map((file: { hasPassword: boolean }) => file.hasPassword)).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  test('when a user has no files, then the whole list is an empty array', async ({ app }) => {
    await app.createUser('dave');
    expect(await page(app, '', await app.login('dave'))).toEqual({ status: 200, body: { files: [] } });
  });
});
