// Who gets a share link's content, and when (ADR 0014): expired links answer 410 and are swept,
// download limits are counted atomically, passwords are asked for and throttled.
import { describe, expect } from 'vitest';
import { startApp, TestClock } from '../helpers/app';
import { cookieAttributes } from '../helpers/pages-fixtures';
import { poll } from '../helpers/multipart';
import { request, startSharingApp, type SharingApp, test } from './support';

const HOUR = 3600_000;
const clock = new TestClock();
test.override('appOptions', { clock });

/** The share page's password form, posted as a browser without JavaScript does. */
function postUnlock(pageUrl: string, password: string) {
  return fetch(pageUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ intent: 'unlock', password }),
    redirect: 'manual',
  });
}

async function fileRow(app: SharingApp, id: string) {
  const [row] = await app.rows('select downloads, max_downloads from files where id = ?', [id]);
  return row;
}

describe('expiry', () => {
  test('when a link has expired, then its page and raw link answer 410 saying so, for visitors and the owner alike', async ({
    app,
  }) => {
    const { file, url, rawUrl } = await app.upload('soon gone', 'soon.txt', 'text/plain', { expiresIn: '60' });
    expect((await request(rawUrl)).status).toBe(200);
    clock.advance(2 * 60_000);
    for (const target of [url, rawUrl]) {
      for (const headers of [{}, { cookie: app.cookie }] as Record<string, string>[]) {
        const res = await request(target, { headers });
        expect(res.status).toBe(410);
        expect(res.body.toString()).toContain('This link has expired.');
        expect(res.body.toString()).not.toContain('soon gone');
      }
    }
    expect((await request(rawUrl, { method: 'HEAD' })).status).toBe(410);
    // The owner's list still shows it, as expired, until the sweep removes it.
    const list = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie: app.cookie } })).json();
    expect(list.files.find((f: { id: string }) => f.id === file.id)).toBeDefined();
  });

  test('when the sweeper runs after expiry, then the row and the content are gone and the link answers 404', async () => {
    const sweepClock = new TestClock();
    const swept = await startSharingApp({}, { clock: sweepClock, expirySweepEveryMs: 100 });
    try {
      const expiring = await swept.upload('expiring bytes', 'expiring.txt', 'text/plain', { expiresIn: '3600' });
      const staying = await swept.upload('staying bytes', 'staying.txt', 'text/plain', { expiresIn: '86400' });
      sweepClock.advance(2 * HOUR);
      // The row goes first, then the content.
      expect(await poll(async () => (await swept.storedFiles()).length === 1)).toBe(true);
      expect(await swept.storedFiles()).toEqual([staying.file.storedName]);
      expect(await swept.rows('select id from files where id = ?', [expiring.file.id])).toEqual([]);
      expect((await request(expiring.url)).status).toBe(404);
      expect((await request(expiring.rawUrl)).status).toBe(404);
      expect((await request(staying.rawUrl)).body.toString()).toBe('staying bytes');
    } finally {
      await swept.close();
    }
  });

  test('when the server restarts after links expired while it was down, then they are removed at start and the others stay', async () => {
    const first = await startSharingApp();
    const expiring = await first.upload('expired while down', 'down.txt', 'text/plain', { expiresIn: '60' });
    const staying = await first.upload('still here', 'here.txt', 'text/plain');
    await first.close();

    const later = new TestClock();
    later.advance(5 * 60_000);
    const second = await startApp(first.env, { clock: later });
    try {
      expect((await second.rows('select id from files order by id')).map((row) => row.id)).toEqual([staying.file.id]);
      expect(await second.storedFiles()).toEqual([staying.file.storedName]);
      expect((await request(`${second.url}/f/${expiring.file.id}/raw`)).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});

describe('download limits', () => {
  test('when 3N clients download a link limited to N at once, then exactly N get the whole content and the rest get 410', async ({
    app,
  }) => {
    const content = 'limited content '.repeat(4096); // 64 KiB
    const { file, rawUrl } = await app.upload(content, 'limited.bin', 'application/octet-stream', {
      maxDownloads: '3',
    });
    const results = await Promise.all(Array.from({ length: 9 }, () => request(rawUrl)));
    const served = results.filter((res) => res.status === 200);
    expect(served).toHaveLength(3);
    for (const res of served) expect(res.body.toString()).toBe(content);
    expect(results.filter((res) => res.status === 410)).toHaveLength(6);
    expect(await fileRow(app, file.id)).toEqual({ downloads: 3, max_downloads: 3 });
    const after = await request(rawUrl);
    expect(after.status).toBe(410);
    expect(after.body.toString()).toContain('This link has reached its download limit.');
  });

  test('when a link is fetched with HEAD, a conditional 304 or by its owner, then no download is counted; a GET and a Range without a claim, from byte 0 or further in, count once each', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('0123456789', 'digits.txt', 'text/plain', { maxDownloads: '10' });
    expect((await request(rawUrl, { method: 'HEAD' })).status).toBe(200);
    const owners = await request(rawUrl, { headers: { cookie: app.cookie, range: 'bytes=5-' } });
    expect(owners.body.toString()).toBe('56789');
    expect((await request(rawUrl, { headers: { cookie: app.cookie } })).body.toString()).toBe('0123456789');
    expect((await fileRow(app, file.id)).downloads).toBe(0);

    const first = await request(rawUrl);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-store');
    const fromZero = await request(rawUrl, { headers: { range: 'bytes=0-3' } });
    expect(fromZero.body.toString()).toBe('0123');
    // Further in, without the claim of a counted download (ADR 0056): a download of its own.
    const furtherIn = await request(rawUrl, { headers: { range: 'bytes=5-' } });
    expect(furtherIn.status).toBe(206);
    expect(furtherIn.body.toString()).toBe('56789');
    const notModified = await request(rawUrl, { headers: { 'if-none-match': String(first.headers.etag) } });
    expect(notModified.status).toBe(304);
    expect((await fileRow(app, file.id)).downloads).toBe(3);
  });

  test('when a link reaches its limit, then the sweeper keeps it until the claims on its downloads have run out, then removes it like an expired one', async () => {
    const sweepClock = new TestClock();
    const swept = await startSharingApp({}, { clock: sweepClock, expirySweepEveryMs: 100 });
    try {
      const { file, rawUrl } = await swept.upload('once', 'once.txt', 'text/plain', { maxDownloads: '1' });
      const counted = await request(rawUrl);
      expect(counted.body.toString()).toBe('once');
      const claim = String(counted.headers['set-cookie']?.find((c) => c.startsWith('claim_'))).split(';')[0];
      // Five hours on, the one who counted it may still finish it.
      sweepClock.advance(5 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await swept.storedFiles()).toEqual([file.storedName]);
      expect((await request(rawUrl, { headers: { range: 'bytes=1-', cookie: claim } })).body.toString()).toBe('nce');
      // Six hours after the last download counted, its claim has run out: the link goes.
      sweepClock.advance(HOUR + 60_000);
      expect(await poll(async () => (await swept.storedFiles()).length === 0)).toBe(true);
      expect(await swept.rows('select id from files where id = ?', [file.id])).toEqual([]);
      expect((await request(rawUrl)).status).toBe(404);
    } finally {
      await swept.close();
    }
  });

  test('when a limited link is shown to a visitor, then its page has no preview (a preview would use a download up), and the owner sees one', async ({
    app,
  }) => {
    const { url } = await app.upload('a text preview would leak this', 'leak.txt', 'text/plain', { maxDownloads: '2' });
    const visitor = (await request(url)).body.toString();
    expect(visitor).not.toContain('a text preview would leak this');
    expect(visitor).toContain('this link allows 2 more downloads');
    expect((await request(url, { headers: { cookie: app.cookie } })).body.toString()).toContain(
      'a text preview would leak this',
    );
  });
});

describe('download counts of links without a limit', () => {
  test('when a link without a limit is downloaded, then the downloads show in its row within seconds, a range without a claim among them, and HEAD and the owner count nothing', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('counted later', 'later.txt', 'text/plain');
    for (let i = 0; i < 3; i++) expect((await request(rawUrl)).status).toBe(200);
    expect((await request(rawUrl, { method: 'HEAD' })).status).toBe(200);
    expect((await request(rawUrl, { headers: { range: 'bytes=3-' } })).status).toBe(206);
    expect((await request(rawUrl, { headers: { cookie: app.cookie } })).status).toBe(200);
    expect(await poll(async () => (await fileRow(app, file.id)).downloads === 4, 5_000)).toBe(true);
    // Written once: two more rounds of the tally add nothing.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await fileRow(app, file.id)).toEqual({ downloads: 4, max_downloads: null });
  });

  test('when a limit is set on a link right after downloads, then the downloads so far count (the limit must be above them)', async ({
    app,
  }) => {
    const { file, rawUrl } = await app.upload('limit me', 'limit.txt', 'text/plain');
    for (let i = 0; i < 2; i++) expect((await request(rawUrl)).status).toBe(200);
    const patch = (maxDownloads: number) =>
      fetch(`${app.url}/api/v1/files/${file.id}`, {
        method: 'PATCH',
        headers: { cookie: app.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ maxDownloads }),
      });
    const refused = await patch(2);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toBe('maxDownloads must be more than the 2 downloads so far');
    expect((await (await patch(3)).json()).file).toMatchObject({ maxDownloads: 3, downloads: 2 });
    expect((await request(rawUrl)).status).toBe(200);
    expect((await request(rawUrl)).status).toBe(410);
  });

  test('when the server stops right after downloads, then they are written before it closes', async () => {
    const first = await startSharingApp();
    const { file, rawUrl } = await first.upload('stop soon', 'stop.txt', 'text/plain');
    for (let i = 0; i < 4; i++) expect((await request(rawUrl)).status).toBe(200);
    await first.close();
    const again = await startApp(first.env);
    try {
      expect(await again.rows('select downloads from files where id = ?', [file.id])).toEqual([{ downloads: 4 }]);
    } finally {
      await again.close();
    }
  });
});

describe('passwords', () => {
  const PASSWORD = 'correct pony';

  test('when a protected link is fetched without the password, then 401 and no content; with X-Share-Password it is served; the owner is never asked', async ({
    app,
  }) => {
    const { rawUrl } = await app.upload('protected bytes', 'secret.txt', 'text/plain', { password: PASSWORD });
    const locked = await request(rawUrl);
    expect(locked.status).toBe(401);
    expect(locked.body.toString()).not.toContain('protected bytes');
    expect(locked.body.toString()).not.toContain('secret.txt');
    const wrong = await request(rawUrl, { headers: { 'x-share-password': 'not it' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.toString()).toContain('Wrong password.');
    const right = await request(rawUrl, { headers: { 'x-share-password': PASSWORD } });
    expect(right.status).toBe(200);
    expect(right.body.toString()).toBe('protected bytes');
    expect(right.headers['cache-control']).toBe('private, no-store');
    expect((await request(rawUrl, { headers: { cookie: app.cookie } })).body.toString()).toBe('protected bytes');
  });

  test('when X-Share-Password carries a non-ASCII password as UTF-8 bytes (as curl sends it), then the link opens', async ({
    app,
  }) => {
    const password = 'pässwörd 🔑';
    const { rawUrl } = await app.upload('unicode lock', 'unicode.txt', 'text/plain', { password });
    // Node's client writes a header string byte for byte (Latin-1): these are the UTF-8 bytes.
    const onTheWire = Buffer.from(password, 'utf8').toString('latin1');
    const right = await request(rawUrl, { headers: { 'x-share-password': onTheWire } });
    expect(right.status).toBe(200);
    expect(right.body.toString()).toBe('unicode lock');
    const wrong = await request(rawUrl, {
      headers: { 'x-share-password': Buffer.from('pässwörd 🔒', 'utf8').toString('latin1') },
    });
    expect(wrong.status).toBe(401);
  });

  test('when a share password is 72 bytes long and a guess adds more after it, then the guess is wrong', async ({
    app,
  }) => {
    const long = 'q'.repeat(72);
    const { rawUrl } = await app.upload('long password', 'long.txt', 'text/plain', { password: long });
    expect((await request(rawUrl, { headers: { 'x-share-password': `${long}!` } })).status).toBe(401);
    expect((await request(rawUrl, { headers: { 'x-share-password': long } })).status).toBe(200);
  });

  test('when a protected page is shown before the password, then its title and OpenGraph tags name nothing and it asks for the password', async ({
    app,
  }) => {
    const { url } = await app.upload('image-ish', 'holiday-photo.png', 'image/png', { password: PASSWORD });
    const res = await request(url);
    expect(res.status).toBe(401);
    const html = res.body.toString();
    expect(html).not.toContain('holiday-photo');
    expect(html).not.toContain('og:image');
    expect(html).toContain('<title>Password-protected file · File sharing</title>');
    expect(html).toMatch(/<input[^>]*type="password"[^>]*name="password"/);
  });

  test('when the right password is posted on the share page, then a signed HttpOnly cookie scoped to that file opens its page and raw link, and no other file', async ({
    app,
  }) => {
    const a = await app.upload('file a', 'a.txt', 'text/plain', { password: PASSWORD });
    const b = await app.upload('file b', 'b.txt', 'text/plain', { password: PASSWORD });
    const res = await postUnlock(a.url, PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/f/${a.file.id}`);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`share_${a.file.id}=`))!;
    expect(cookieAttributes(setCookie)).toMatchObject({ httponly: true, path: `/f/${a.file.id}`, samesite: 'Lax' });
    const grant = setCookie.split(';')[0];

    expect((await request(a.rawUrl, { headers: { cookie: grant } })).body.toString()).toBe('file a');
    const page = await request(a.url, { headers: { cookie: grant } });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('file a');
    // Its text preview is the content: kept by no cache, as the raw link's answer.
    expect(page.headers['cache-control']).toBe('private, no-store');
    const data = await request(`${a.url}.data`, { headers: { cookie: grant } });
    expect(data.headers['cache-control']).toBe('private, no-store');
    // The same proof under file b's name opens nothing: it is signed for file a.
    const borrowed = `share_${b.file.id}=${grant.split('=')[1]}`;
    expect((await request(b.rawUrl, { headers: { cookie: borrowed } })).status).toBe(401);
    // A forged proof neither.
    expect((await request(a.rawUrl, { headers: { cookie: `share_${a.file.id}=forged.token.value` } })).status).toBe(
      401,
    );

    // A new password makes the old proof worthless.
    await fetch(`${app.url}/api/v1/files/${a.file.id}`, {
      method: 'PATCH',
      headers: { cookie: app.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'another pony' }),
    });
    expect((await request(a.rawUrl, { headers: { cookie: grant } })).status).toBe(401);
  });

  test('when a wrong password is posted on the share page, then the form comes back with 401 and a message, and no cookie', async ({
    app,
  }) => {
    const { url } = await app.upload('x', 'x.txt', 'text/plain', { password: PASSWORD });
    const res = await postUnlock(url, 'nope');
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('Wrong password.');
    expect(res.headers.getSetCookie().filter((c) => c.startsWith('share_'))).toEqual([]);
  });

  test('when one address sends wrong passwords for a file, then after 5 it gets 429 with Retry-After, even with the right one, the page says how long to wait, and another file is not affected', async ({
    app,
  }) => {
    const throttled = await app.upload('guarded', 'guarded.txt', 'text/plain', { password: PASSWORD });
    const elsewhere = await app.upload('elsewhere', 'elsewhere.txt', 'text/plain', { password: PASSWORD });
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => request(throttled.rawUrl, { headers: { 'x-share-password': `guess ${i}` } })),
    );
    expect(guesses.filter((res) => res.status === 401)).toHaveLength(5);
    expect(guesses.filter((res) => res.status === 429)).toHaveLength(3);
    const refused = await request(throttled.rawUrl, { headers: { 'x-share-password': PASSWORD } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const page = await postUnlock(throttled.url, PASSWORD);
    expect(page.status).toBe(429);
    // The window's 15 minutes, in words, rather than "later".
    expect(await page.text()).toContain('Too many wrong passwords for this file. Try again in 15 minutes.');
    expect((await request(elsewhere.rawUrl, { headers: { 'x-share-password': PASSWORD } })).status).toBe(200);
  });
});
