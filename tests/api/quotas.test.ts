// Storage quotas and disabled accounts through the API (ADR 0018): an upload past the quota is
// refused with 413 while it streams and leaves nothing behind; parallel uploads cannot pass it
// together; deleting frees space; GET /api/v1/me tells usage and quota. A disabled user's
// cookie, token and links stop working at once. Runs on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, startApp, TestClock, type TestApp } from '../helpers/app';
import { BOUNDARY, MULTIPART_TYPE, partHead } from '../helpers/multipart';
import { openRequest } from '../helpers/raw-http';
import { tusClient } from '../helpers/tus';

const QUOTA = 100_000;
let app: TestApp;
let clock: TestClock;

beforeAll(async () => {
  clock = new TestClock();
  // The one-minute sweep every 100 ms: a stale hold is seen to go without waiting.
  app = await startApp({ DEFAULT_QUOTA_BYTES: String(QUOTA) }, { clock, expirySweepEveryMs: 100 });
});
afterAll(() => app.close());

let users = 0;
async function newUser(): Promise<{ name: string; cookie: string }> {
  const name = `quota${++users}`;
  await app.createUser(name);
  return { name, cookie: await app.login(name) };
}

function upload(cookie: string, bytes: number, name = 'data.bin') {
  return fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(new Uint8Array(bytes).fill(7), name),
  });
}

async function me(cookie: string) {
  const res = await fetch(`${app.url}/api/v1/me`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return res.json();
}

async function rowsOf(name: string) {
  return app.rows('select f.size, f.stored_name from files f join users u on u.id = f.user_id where u.username = ?', [
    name,
  ]);
}

describe('the storage quota', () => {
  it('when uploads fit the quota, then they are stored, and GET /me shows the bytes, the files and the quota', async () => {
    const { name, cookie } = await newUser();
    expect(await me(cookie)).toEqual({
      user: { id: expect.any(String), username: name },
      usage: { bytes: 0, files: 0, heldBytes: 0, unfinishedUploads: 0 },
      quota: QUOTA,
      fileListView: 'table',
    });
    expect((await upload(cookie, 60_000)).status).toBe(201);
    expect((await upload(cookie, 40_000)).status).toBe(201);
    expect((await me(cookie)).usage).toEqual({ bytes: QUOTA, files: 2, heldBytes: 0, unfinishedUploads: 0 });
  });

  it('when an upload would pass the quota, then it is 413 "Storage quota exceeded" with the room left, and nothing is left behind', async () => {
    const { name, cookie } = await newUser();
    expect((await upload(cookie, 70_000)).status).toBe(201);
    const stored = await app.storedFiles();
    const res = await upload(cookie, 30_001);
    expect(res.status).toBe(413);
    // 30,000 of 100,000 bytes left: the refused upload's own hold is not counted.
    expect(await res.json()).toEqual({ error: 'Storage quota exceeded: 30 kB of your 100 kB is free' });
    expect(await app.storedFiles()).toEqual(stored);
    expect(await app.incompleteFiles()).toEqual([]);
    expect(await rowsOf(name)).toHaveLength(1);
    expect(await app.rows('select * from upload_reservations')).toEqual([]);
    // What still fits is still accepted.
    expect((await upload(cookie, 30_000)).status).toBe(201);
  });

  it('when a body fifty times the quota is streamed (chunked, no length), then it is 413 and not a byte of it stays', async () => {
    const { name, cookie } = await newUser();
    const before = await app.storedFiles();
    const { request: req, answer: answered } = openRequest(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie, 'content-type': MULTIPART_TYPE, 'transfer-encoding': 'chunked' },
    });
    req.write(partHead({ name: 'file', filename: 'huge.bin' }));
    // Written past the quota, bytes are read and dropped so that the client hears the answer.
    for (let i = 0; i < 50; i++) req.write(Buffer.alloc(QUOTA, 1));
    req.end(`\r\n--${BOUNDARY}--\r\n`);
    const answer = await answered;
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({ error: 'Storage quota exceeded: 100 kB of your 100 kB is free' });
    expect(await app.storedFiles()).toEqual(before);
    expect(await app.incompleteFiles()).toEqual([]);
    expect(await rowsOf(name)).toEqual([]);
  });

  it('when ten uploads race for the space of four, then the accepted ones fit, the rest are 413, and the bytes stored are the rows’ sum', async () => {
    const { name, cookie } = await newUser();
    const size = 24_000;
    const before = await app.storedFiles();
    const statuses = (
      await Promise.all(Array.from({ length: 10 }, (_, i) => upload(cookie, size, `race${i}.bin`)))
    ).map((res) => res.status);
    const accepted = statuses.filter((status) => status === 201).length;
    expect(statuses.every((status) => status === 201 || status === 413)).toBe(true);
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted * size).toBeLessThanOrEqual(QUOTA);
    const rows = await rowsOf(name);
    expect(rows).toHaveLength(accepted);
    const added = (await app.storedFiles()).filter((stored) => !before.includes(stored));
    const storedBytes = (await Promise.all(added.map(async (stored) => (await app.readStored(stored))!.length))).reduce(
      (a, b) => a + b,
      0,
    );
    expect(storedBytes).toBe(rows.reduce((sum, row) => sum + Number(row.size), 0));
    expect(await app.incompleteFiles()).toEqual([]);
    expect(await app.rows('select * from upload_reservations')).toEqual([]);
  });

  it('when two large uploads race for room for one, then one is stored and the other is 413, not both refused', {
    timeout: 60_000,
  }, async () => {
    const { name, cookie } = await newUser();
    const MiB = 1024 * 1024;
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, 30 * MiB, name]);
    // Larger than a hold step (8 MiB): holds grown step by step took half the room each, and both failed.
    const statuses = (
      await Promise.all([upload(cookie, 18 * MiB, 'left.bin'), upload(cookie, 18 * MiB, 'right.bin')])
    ).map((res) => res.status);
    expect(statuses.sort()).toEqual([201, 413]);
    expect(await rowsOf(name)).toHaveLength(1);
    expect(await app.rows('select * from upload_reservations')).toEqual([]);
  });

  it('when a file is deleted, then its space is free again', async () => {
    const { cookie } = await newUser();
    const first = await (await upload(cookie, 90_000)).json();
    expect((await upload(cookie, 20_000)).status).toBe(413);
    expect(
      (await fetch(`${app.url}/api/v1/files/${first.file.id}`, { method: 'DELETE', headers: { cookie } })).status,
    ).toBe(200);
    expect((await upload(cookie, 20_000)).status).toBe(201);
    expect((await me(cookie)).usage).toEqual({ bytes: 20_000, files: 1, heldBytes: 0, unfinishedUploads: 0 });
  });

  it('when a user has their own quota or none, then it applies instead of the default', async () => {
    const { name, cookie } = await newUser();
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, 10, name]);
    expect((await me(cookie)).quota).toBe(10);
    expect((await upload(cookie, 11)).status).toBe(413);
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, null, name]);
    expect((await me(cookie)).quota).toBeNull();
    expect((await upload(cookie, QUOTA + 1)).status).toBe(201);
  });

  it('when a user’s own quota is 1 MB (as `users quota … 1MB` stores it) or 512 KiB, then the 413 says it in the units it was set in', async () => {
    const { name, cookie } = await newUser();
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, 1_000_000, name]);
    expect((await upload(cookie, 400_000)).status).toBe(201);
    const decimal = await upload(cookie, 600_001);
    expect(decimal.status).toBe(413);
    expect(await decimal.json()).toEqual({ error: 'Storage quota exceeded: 600 kB of your 1 MB is free' });
    await app.rows('update users set quota_bytes = ? where username = ?', [512 * 1024, name]);
    const binary = await upload(cookie, 124_289);
    expect(binary.status).toBe(413);
    // 124,288 bytes are 121.4 KiB: the room is rounded down, never said to be more than it is.
    expect(await binary.json()).toEqual({ error: 'Storage quota exceeded: 121 KiB of your 512 KiB is free' });
  });

  it('when a user with their own quota uploads with an API token instead of the cookie, then the same quota applies', async () => {
    const { name, cookie } = await newUser();
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, 10, name]);
    const created = await fetch(`${app.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'script' }),
    });
    const { token } = (await created.json()) as { token: string };
    const withToken = (bytes: number) =>
      fetch(`${app.url}/api/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: fileForm(new Uint8Array(bytes).fill(7), 'data.bin'),
      });
    expect((await withToken(11)).status).toBe(413);
    expect((await withToken(10)).status).toBe(201);
    // The cookie sees the same quota, now used up.
    expect((await upload(cookie, 1)).status).toBe(413);
  });

  it('when bytes are held by an upload that died with its instance, then they count until the hold goes stale and is swept', async () => {
    const { name, cookie } = await newUser();
    const [{ id }] = await app.rows('select id from users where username = ?', [name]);
    const now = clock.now();
    const held = app.config.database.dialect === 'sqlite' ? now : new Date(now);
    await app.rows('insert into upload_reservations (id, user_id, bytes, updated_at) values (?, ?, ?, ?)', [
      'crashed',
      id,
      90_000,
      held,
    ]);
    expect((await upload(cookie, 20_000)).status).toBe(413);
    clock.advance(14 * 60_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await upload(cookie, 20_000)).status).toBe(413);
    clock.advance(2 * 60_000);
    await expect
      .poll(() => app.rows('select id from upload_reservations where id = ?', ['crashed']), { timeout: 5000 })
      .toEqual([]);
    expect((await upload(cookie, 20_000)).status).toBe(201);
  });
});

describe('what holds the room', () => {
  /** A resumable upload begun with `received` of its `length` bytes; its address on the test port. */
  async function unfinishedUpload(cookie: string, length: number, received: number, filename = 'paused.bin') {
    const tus = tusClient(app.url, cookie);
    const begun = await tus.create(length, { filename });
    expect(begun.status).toBe(201);
    const location = `${app.url}${begun.headers.get('location')!}`;
    if (received > 0) expect((await tus.patch(location, 0, new Uint8Array(received))).status).toBe(204);
    return { tus, location };
  }

  it('when unfinished uploads hold room, then the 413 of a multipart or a resumable upload says the room left and what they hold', async () => {
    const { cookie } = await newUser();
    await unfinishedUpload(cookie, 25_000, 1000, 'first.bin');
    await unfinishedUpload(cookie, 15_000, 0, 'second.bin');
    expect((await upload(cookie, 30_000)).status).toBe(201);
    // 100,000 - 30,000 stored - 40,000 held = 30,000 free.
    const expected = {
      error: 'Storage quota exceeded: 30 kB of your 100 kB is free; 2 unfinished uploads hold 40 kB',
    };
    const multipart = await upload(cookie, 30_001);
    expect(multipart.status).toBe(413);
    expect(await multipart.json()).toEqual(expected);
    const resumable = await tusClient(app.url, cookie).create(30_001);
    expect(resumable.status).toBe(413);
    expect(await resumable.json()).toEqual(expected);
  });

  it('when the quota is used up to the byte by one unfinished upload, then the 413 says none is free and names it', async () => {
    const { cookie } = await newUser();
    await unfinishedUpload(cookie, QUOTA, 0);
    const res = await upload(cookie, 1);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: 'Storage quota exceeded: none of your 100 kB is free; 1 unfinished upload holds 100 kB',
    });
  });

  it('when a resumable upload is unfinished, then GET /me shows the bytes it holds beside those used, and 0 once it is cancelled', async () => {
    const { cookie } = await newUser();
    expect((await upload(cookie, 10_000)).status).toBe(201);
    const { tus, location } = await unfinishedUpload(cookie, 50_000, 20_000);
    // The whole declared length is held, not only what has arrived.
    expect((await me(cookie)).usage).toEqual({ bytes: 10_000, files: 1, heldBytes: 50_000, unfinishedUploads: 1 });
    expect((await tus.remove(location)).status).toBe(204);
    expect((await me(cookie)).usage).toEqual({ bytes: 10_000, files: 1, heldBytes: 0, unfinishedUploads: 0 });
    // The room is free again.
    expect((await upload(cookie, 90_000)).status).toBe(201);
  });

  it('when another user has unfinished uploads, then they count in neither GET /me nor the 413 of this one', async () => {
    const other = await newUser();
    await unfinishedUpload(other.cookie, 60_000, 0);
    const { cookie } = await newUser();
    expect((await me(cookie)).usage).toEqual({ bytes: 0, files: 0, heldBytes: 0, unfinishedUploads: 0 });
    const res = await upload(cookie, QUOTA + 1);
    expect(await res.json()).toEqual({ error: 'Storage quota exceeded: 100 kB of your 100 kB is free' });
  });
});

describe('a disabled account', () => {
  async function disable(name: string, disabled: boolean) {
    const value = disabled ? (app.config.database.dialect === 'sqlite' ? Date.now() : new Date()) : null;
    await app.rows('update users set disabled_at = ? where username = ?', [value, name]);
  }

  it('when a user is disabled, then their cookie and token are refused at the next request, login says why, and their links answer 404; enabled, all works again', async () => {
    const { name, cookie } = await newUser();
    const created = await fetch(`${app.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{"name":"bot"}',
    });
    const { token } = await created.json();
    const { file } = await (await upload(cookie, 10, 'shared.txt')).json();

    await disable(name, true);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
    expect((await fetch(`${app.url}/f/${file.id}/raw`)).status).toBe(404);
    const login = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: DEFAULT_PASSWORD }),
    });
    expect(login.status).toBe(403);
    expect(await login.json()).toEqual({ error: 'This account has been disabled. Ask an administrator.' });
    // A wrong password learns nothing about the account.
    const wrong = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);

    await disable(name, false);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${app.url}/f/${file.id}/raw`)).status).toBe(200);
    const again = await app.login(name);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie: again } })).status).toBe(200);
  });
});
