// Share settings through the API (ADR 0014): set at upload (multipart fields before the file),
// changed with PATCH, shown in the file object; bad values refused with nothing left behind.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, TestClock } from '../helpers/app';
import { openRequest } from '../helpers/raw-http';
import { MULTIPART_TYPE, multipartBody, type Part } from '../helpers/multipart';
import { startSharingApp, type SharingApp } from './support';

let app: SharingApp;
let other: string;

beforeAll(async () => {
  app = await startSharingApp();
  await app.createUser('other');
  other = await app.login('other');
});
afterAll(() => app.close());

function patch(id: string, body: unknown, cookie = app.cookie, contentType = 'application/json') {
  return fetch(`${app.url}/api/v1/files/${id}`, {
    method: 'PATCH',
    headers: { cookie, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function uploadRaw(fields: Record<string, string>, cookie = app.cookie) {
  return fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm('content', 'a.txt', 'text/plain', 'file', fields),
  });
}

describe('settings at upload', () => {
  it('when an upload sends expiresIn, maxDownloads and password before the file, then the file object carries them, never the password or its hash', async () => {
    const before = Date.now();
    const res = await uploadRaw({ expiresIn: '3600', maxDownloads: '5', password: 'open sesame' });
    expect(res.status).toBe(201);
    const text = await res.text();
    const { file } = JSON.parse(text);
    expect(Date.parse(file.expiresAt)).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(Date.parse(file.expiresAt)).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    expect(file).toMatchObject({ maxDownloads: 5, downloads: 0, hasPassword: true });
    expect(text).not.toContain('open sesame');
    expect(text).not.toContain('$2');
    expect(Object.keys(file)).not.toContain('passwordHash');
    const [row] = await app.rows('select password_hash from files where id = ?', [file.id]);
    expect(String(row.password_hash)).toMatch(/^\$2[aby]\$10\$/);
  });

  it('when an upload sends expiresAt as ISO-8601, then that is its expiry', async () => {
    const at = new Date(Date.now() + 2 * 86400_000);
    at.setMilliseconds(0);
    const res = await uploadRaw({ expiresAt: at.toISOString().replace('.000Z', '+00:00') });
    expect(res.status).toBe(201);
    expect((await res.json()).file.expiresAt).toBe(at.toISOString());
  });

  it('when an upload sends no settings (or blank fields, as a browser form does), then the link never expires, has no limit and no password', async () => {
    const res = await uploadRaw({ expiresAt: '', maxDownloads: '', password: '' });
    expect(res.status).toBe(201);
    expect((await res.json()).file).toMatchObject({
      expiresAt: null,
      maxDownloads: null,
      downloads: 0,
      hasPassword: false,
    });
  });

  it.each([
    [{ expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
    [{ expiresAt: 'tomorrow' }, 'expiresAt must be an ISO-8601 date and time'],
    // Offsets no clock has: the format passes, the date is invalid (was a 500 with the file kept, never expiring).
    [{ expiresAt: '2030-01-01T00:00:00+24:00' }, 'expiresAt must be an ISO-8601 date and time'],
    [{ expiresAt: '2030-01-01T00:00:00+00:60' }, 'expiresAt must be an ISO-8601 date and time'],
    [{ expiresIn: '0' }, 'expiresIn must be at least 1'],
    [{ expiresIn: '1.5' }, 'expiresIn must be a whole number'],
    [{ maxDownloads: '0' }, 'maxDownloads must be at least 1'],
    [{ maxDownloads: '-2' }, 'maxDownloads must be at least 1'],
    [{ maxDownloads: 'lots' }, 'maxDownloads must be a whole number'],
    [{ password: 'abc' }, 'password must be at least 4 characters long'],
    [{ password: 'x'.repeat(73) }, 'password must be at most 72 bytes'],
    [{ expiresAt: '2099-01-01T00:00:00Z', expiresIn: '60' }, 'Send expiresAt or expiresIn, not both'],
  ])('when an upload sends %j, then it is refused with 400 "%s" and nothing is stored', async (fields, message) => {
    const storedBefore = await app.storedFiles();
    const [{ count: rowsBefore }] = await app.rows('select count(*) as count from files');
    const res = await uploadRaw(fields);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain(message);
    expect(await app.storedFiles()).toEqual(storedBefore);
    expect((await app.rows('select count(*) as count from files'))[0].count).toBe(rowsBefore);
    expect(await app.incompleteFiles()).toEqual([]);
  });

  it.each<[string, Part[], string]>([
    [
      'is sent twice with two values',
      [
        { name: 'password', content: 'first one' },
        { name: 'password', content: 'second one' },
        { name: 'file', filename: 'twice.txt', contentType: 'text/plain', content: 'which password?' },
      ],
      'The password field is sent twice',
    ],
    [
      'comes after the file part',
      [
        { name: 'file', filename: 'late.txt', contentType: 'text/plain', content: 'late settings' },
        { name: 'password', content: 'too late' },
      ],
      'The password field must come before the file part',
    ],
  ])(
    'when a setting %s, then the upload is refused with 400 and nothing is stored, then or later',
    async (_case, parts, message) => {
      const storedBefore = await app.storedFiles();
      const [{ count: rowsBefore }] = await app.rows('select count(*) as count from files');
      const res = await fetch(`${app.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: app.cookie, 'content-type': MULTIPART_TYPE },
        body: new Uint8Array(multipartBody(parts)),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe(message);
      // A refusal answered before the file part must not let that file be stored once it arrives.
      await sleep(300);
      expect(await app.storedFiles()).toEqual(storedBefore);
      expect((await app.rows('select count(*) as count from files'))[0].count).toBe(rowsBefore);
    },
  );
});

describe('PATCH /api/v1/files/<id>', () => {
  it('when the owner sets and then clears each setting, then the file object follows, and the list shows it', async () => {
    const { file } = await app.upload('patch me', 'patch.txt', 'text/plain');
    const at = new Date(Date.now() + 86400_000).toISOString();
    let res = await patch(file.id, { expiresAt: at, maxDownloads: 3, password: 'secret!' });
    expect(res.status).toBe(200);
    expect((await res.json()).file).toMatchObject({
      id: file.id,
      expiresAt: at,
      maxDownloads: 3,
      downloads: 0,
      hasPassword: true,
    });

    // Only the keys sent change.
    res = await patch(file.id, { maxDownloads: 7 });
    expect((await res.json()).file).toMatchObject({ expiresAt: at, maxDownloads: 7, hasPassword: true });

    const list = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie: app.cookie } })).json();
    expect(list.files.find((f: { id: string }) => f.id === file.id)).toMatchObject({
      expiresAt: at,
      maxDownloads: 7,
      hasPassword: true,
    });

    res = await patch(file.id, { expiresAt: null, maxDownloads: null, password: null });
    expect(res.status).toBe(200);
    expect((await res.json()).file).toMatchObject({ expiresAt: null, maxDownloads: null, hasPassword: false });
    const [row] = await app.rows('select expires_at, max_downloads, password_hash from files where id = ?', [file.id]);
    expect(row).toEqual({ expires_at: null, max_downloads: null, password_hash: null });
  });

  it('when the owner sends expiresIn: null, then the expiry is cleared, as null clears every other setting', async () => {
    const { file } = await app.upload('expiring', 'expiring.txt', 'text/plain', { expiresIn: '3600' });
    expect(file.expiresAt).not.toBeNull();
    const res = await patch(file.id, { expiresIn: null });
    expect(res.status).toBe(200);
    expect((await res.json()).file).toMatchObject({ expiresAt: null });
    const [row] = await app.rows('select expires_at from files where id = ?', [file.id]);
    expect(row).toEqual({ expires_at: null });
  });

  it.each([
    [{ expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt must be in the future'],
    [{ expiresAt: '2030-01-01T00:00:00+99:99' }, 'expiresAt must be an ISO-8601 date and time'],
    [{ maxDownloads: 0 }, 'maxDownloads must be at least 1'],
    [{ maxDownloads: 2.5 }, 'maxDownloads must be a whole number'],
    [{ password: 'abc' }, 'password must be at least 4 characters long'],
    [{ password: 42 }, 'password must be a string or null'],
    [{ colour: 'red' }, 'Unrecognized key'],
  ])('when the owner sends %j, then 400 "%s" and nothing changes', async (body, message) => {
    const { file } = await app.upload('bad patch', 'bad.txt', 'text/plain', { maxDownloads: '4' });
    const res = await patch(file.id, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain(message);
    const [row] = await app.rows('select expires_at, max_downloads, password_hash from files where id = ?', [file.id]);
    expect(row).toEqual({ expires_at: null, max_downloads: 4, password_hash: null });
  });

  it('when the body is not JSON, then 400 with a clear error', async () => {
    const { file } = await app.upload('form body', 'form.txt', 'text/plain');
    const res = await patch(file.id, 'maxDownloads=3', app.cookie, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain('JSON');
    const malformed = await patch(file.id, '{"maxDownloads":', app.cookie);
    expect(malformed.status).toBe(400);
  });

  it('when another user changes the settings, then 403 and nothing changes; an unknown id is 404; no session is 401', async () => {
    const { file } = await app.upload('mine', 'mine.txt', 'text/plain');
    expect((await patch(file.id, { maxDownloads: 1 }, other)).status).toBe(403);
    expect((await patch('AAAAAAAAAAAAAAAAAAAAAA', { maxDownloads: 1 })).status).toBe(404);
    const anonymous = await fetch(`${app.url}/api/v1/files/${file.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    const [row] = await app.rows('select max_downloads from files where id = ?', [file.id]);
    expect(row.max_downloads).toBeNull();
  });

  it('when a limit is set at or below the downloads already made, then 400 naming them', async () => {
    const { file, rawUrl } = await app.upload('counted', 'counted.txt', 'text/plain', { maxDownloads: '5' });
    for (let i = 0; i < 2; i++) expect((await fetch(rawUrl)).status).toBe(200);
    const res = await patch(file.id, { maxDownloads: 2 });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('maxDownloads must be more than the 2 downloads so far');
    expect((await (await patch(file.id, { maxDownloads: 3 })).json()).file).toMatchObject({
      maxDownloads: 3,
      downloads: 2,
    });
  });
});

describe('a relative expiry and a slow upload', () => {
  it('when expiresIn is sent and the upload takes longer than that, then the link counts from when the file is made, not from its first byte', async () => {
    const clock = new TestClock();
    const slow = await startApp({}, { clock });
    try {
      await slow.createUser('slowpoke');
      const cookie = await slow.login('slowpoke');
      const boundary = 'relative-expiry-boundary';
      const { request, answer } = openRequest(`${slow.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      request.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="expiresIn"\r\n\r\n60\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\n\r\nthe first half, `,
      );
      await sleep(200);
      // Two hours pass while the rest of the file is on its way.
      clock.advance(2 * 3600_000);
      request.end(`and the rest\r\n--${boundary}--\r\n`);
      const res = await answer;
      expect(res.status, res.text).toBe(201);
      const { file } = JSON.parse(res.text) as { file: { id: string; createdAt: string; expiresAt: string } };
      expect(Date.parse(file.expiresAt) - Date.parse(file.createdAt)).toBe(60_000);
      expect((await fetch(`${slow.url}/f/${file.id}/raw`)).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});

describe('MAX_EXPIRY and DEFAULT_EXPIRY', () => {
  it('when the server sets them, then uploads get the default, "never" and longer expiries are refused, and PATCH cannot clear the expiry', async () => {
    const clock = new TestClock();
    const limited = await startApp({ MAX_EXPIRY: '1d', DEFAULT_EXPIRY: '1h' }, { clock });
    try {
      await limited.createUser('uploader');
      const cookie = await limited.login('uploader');
      const send = (fields: Record<string, string>) =>
        fetch(`${limited.url}/api/v1/files`, {
          method: 'POST',
          headers: { cookie },
          body: fileForm('x', 'x.txt', 'text/plain', 'file', fields),
        });

      const res = await send({});
      expect(res.status).toBe(201);
      const { file } = await res.json();
      expect(Math.abs(Date.parse(file.expiresAt) - (clock.now() + 3600_000))).toBeLessThan(5000);

      for (const fields of [{ expiresIn: 'never' }, { expiresIn: String(2 * 86400) }]) {
        const refused = await send(fields);
        expect(refused.status).toBe(400);
        expect((await refused.json()).error).toBe('Links on this server must expire within 1 day');
      }
      expect((await send({ expiresIn: '86400' })).status).toBe(201);

      const cleared = await fetch(`${limited.url}/api/v1/files/${file.id}`, {
        method: 'PATCH',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ expiresAt: null }),
      });
      expect(cleared.status).toBe(400);
      expect((await cleared.json()).error).toBe('Links on this server must expire within 1 day');
    } finally {
      await limited.close();
    }
  });
});
