// The raw link's fast path ahead of Express (ADR 0022) answers exactly as the Express route
// does. `/f/<id>/raw` takes the fast path; `/f/<id>/raw/` (routing ignores a trailing slash)
// and any other spelling go through Express: each case asks both and compares what a client sees.
import { describe, expect } from 'vitest';
import { TestClock } from '../helpers/app';
import { request, startSharingApp, test, type RawResponse, type Uploaded } from './support';
import { allowErrorLogs } from '../setup/expected-errors';

/** Headers that differ between any two answers: the moment, the request's id, a page's nonce, a download's claim. */
const PER_REQUEST = new Set(['date', 'x-request-id']);

/** What a client sees of an answer, with the per-request parts set aside. */
function seen(res: RawResponse) {
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter(([name]) => !PER_REQUEST.has(name))
      .map(([name, value]) => [
        name,
        String(value)
          .replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-N')
          .replace(/(claim_[A-Za-z0-9_-]+=)[^;]+/g, '$1C'),
      ]),
  );
  const body = res.body.toString('latin1').replace(/nonce="[A-Za-z0-9+/=]+"/g, 'nonce="N"');
  return { status: res.status, headers, body };
}

/** The same request on the fast path and through Express. */
async function bothWays(rawUrl: string, options: { method?: string; headers?: Record<string, string> } = {}) {
  const fast = await request(rawUrl, options);
  const express = await request(`${rawUrl}/`, options);
  return { fast, express };
}

let text: Uploaded;
let image: Uploaded;
let binary: Uploaded;

test.beforeAll(async ({ app }) => {
  text = await app.upload('plain text, shown inline\n'.repeat(40), 'notes.txt', 'text/plain');
  image = await app.upload(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]),
    'dot.png',
    'image/png',
  );
  binary = await app.upload(new Uint8Array(5000).fill(7), 'résumé "final".bin');
});

describe('the raw link ahead of Express', () => {
  test('when a file is fetched whole, inline or as an attachment, then status, every header and the bytes are those of the Express route', async () => {
    for (const file of [text, image, binary]) {
      const { fast, express } = await bothWays(file.rawUrl);
      expect(fast.status, file.file.originalName).toBe(200);
      expect(seen(fast)).toEqual(seen(express));
      // The headers every response carries are there too.
      expect(fast.headers['referrer-policy']).toBe('same-origin');
      expect(fast.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(fast.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  test('when HEAD, a range, an unsatisfiable range or a conditional request is sent, then each answer is the Express route’s', async () => {
    const etag = (await request(binary.rawUrl)).headers.etag!;
    const cases: Array<{ method?: string; headers?: Record<string, string>; status: number }> = [
      { method: 'HEAD', status: 200 },
      { headers: { range: 'bytes=10-99' }, status: 206 },
      { headers: { range: 'bytes=9000-' }, status: 416 },
      { headers: { 'if-none-match': etag }, status: 304 },
      { headers: { 'if-match': '"something-else"' }, status: 412 },
    ];
    for (const { status, ...options } of cases) {
      const { fast, express } = await bothWays(binary.rawUrl, options);
      expect(fast.status, JSON.stringify(options)).toBe(status);
      expect(seen(fast)).toEqual(seen(express));
    }
  });

  test('when the id is unknown, then the answer is the not-found page Express gives', async ({ app }) => {
    const { fast, express } = await bothWays(`${app.url}/f/AAAAAAAAAAAAAAAAAAAAAA/raw`);
    expect(fast.status).toBe(404);
    expect(fast.headers['content-type']).toContain('text/html');
    expect(seen(fast)).toEqual(seen(express));
  });

  test('when a link is used up or locked by a password, then the 410 and 401 pages are the Express route’s', async ({
    app,
  }) => {
    const once = await app.upload('one download only', 'once.txt', 'text/plain', { maxDownloads: '1' });
    expect((await request(once.rawUrl)).status).toBe(200);
    const usedUp = await bothWays(once.rawUrl);
    expect(usedUp.fast.status).toBe(410);
    expect(seen(usedUp.fast)).toEqual(seen(usedUp.express));

    const locked = await app.upload('secret', 'locked.txt', 'text/plain', { password: 'open sesame' });
    const refused = await bothWays(locked.rawUrl);
    expect(refused.fast.status).toBe(401);
    expect(seen(refused.fast)).toEqual(seen(refused.express));
    // With the password the Express route answers, and counts a wrong one once.
    const opened = await request(locked.rawUrl, { headers: { 'x-share-password': 'open sesame' } });
    expect(opened.status).toBe(200);
    expect(opened.body.toString()).toBe('secret');
  });

  test('when a limited link is counted by a range and resumed with its claim, then both paths set the same claim, continue alike and count alike', async ({
    app,
  }) => {
    const twice = await app.upload('0123456789', 'twice.txt', 'text/plain', { maxDownloads: '2' });
    const counted = await bothWays(twice.rawUrl, { headers: { range: 'bytes=0-4' } });
    expect([counted.fast.status, counted.express.status]).toEqual([206, 206]);
    expect(seen(counted.fast)).toEqual(seen(counted.express));
    const claimOf = (res: RawResponse) =>
      String(res.headers['set-cookie']?.find((c) => c.startsWith(`claim_${twice.file.id}=`))).split(';')[0];
    const fast = await request(twice.rawUrl, { headers: { range: 'bytes=5-', cookie: claimOf(counted.fast) } });
    const express = await request(`${twice.rawUrl}/`, {
      headers: { range: 'bytes=5-', cookie: claimOf(counted.express) },
    });
    expect([fast.status, fast.body.toString()]).toEqual([206, '56789']);
    expect(seen(fast)).toEqual(seen(express));
    expect(await app.rows('select downloads from files where id = ?', [twice.file.id])).toEqual([{ downloads: 2 }]);
    // Without a claim, a range is a download of its own: none is left.
    const refused = await bothWays(twice.rawUrl, { headers: { range: 'bytes=5-' } });
    expect([refused.fast.status, refused.express.status]).toEqual([410, 410]);
    expect(seen(refused.fast)).toEqual(seen(refused.express));
  });

  test('when the owner fetches a link limited to one download, then it is not used up, on either path', async ({
    app,
  }) => {
    const once = await app.upload('kept for the visitor', 'kept.txt', 'text/plain', { maxDownloads: '1' });
    for (let i = 0; i < 2; i++) {
      const { fast, express } = await bothWays(once.rawUrl, { headers: { cookie: app.cookie } });
      expect([fast.status, express.status]).toEqual([200, 200]);
    }
    expect((await request(once.rawUrl)).status).toBe(200);
    expect((await request(once.rawUrl)).status).toBe(410);
  });
});

describe('a fault on the fast path', () => {
  test('when the database is gone, then both paths answer the same plain 500 with the headers every response carries, cookie or not', async () => {
    allowErrorLogs(); // each request the database fails is logged
    const broken = await startSharingApp();
    try {
      const { rawUrl } = await broken.upload('soon unreadable', 'notes.txt', 'text/plain');
      await broken.closeDatabase();
      for (const headers of [{}, { cookie: broken.cookie }] as Array<Record<string, string>>) {
        const { fast, express } = await bothWays(rawUrl, { headers });
        expect(fast.status).toBe(500);
        expect(fast.body.toString()).toBe('Internal server error');
        expect(fast.headers['referrer-policy']).toBe('same-origin');
        expect(seen(fast)).toEqual(seen(express));
      }
    } finally {
      await broken.close();
    }
  });
});

describe('the session on the fast path', () => {
  test('when a cookie due for renewal fetches a raw link, then a renewed cookie comes back with the Express route’s attributes', async () => {
    // Sessions of 30 minutes are always under the one-hour renewal threshold: every cookie request renews.
    const renewing = await startSharingApp({ JWT_EXPIRES_IN: '30m' });
    try {
      const { cookie } = renewing;
      const { rawUrl } = await renewing.upload('mine', 'mine.txt');
      const { fast, express } = await bothWays(rawUrl, { headers: { cookie } });
      expect(fast.status).toBe(200);
      const attributes = (res: RawResponse) =>
        String(res.headers['set-cookie'])
          .split(';')
          .slice(1)
          .map((part) => part.trim());
      expect(fast.headers['set-cookie']?.[0]).toMatch(/^token=[^;]+;/);
      expect(attributes(fast)).toEqual(attributes(express));
    } finally {
      await renewing.close();
    }
  });

  test('when TRUST_PROXY is set and a signed-in owner fetches a raw link through the proxy, then the session shows the forwarded address', async () => {
    const clock = new TestClock();
    const proxied = await startSharingApp({ TRUST_PROXY: 'true' }, { clock });
    try {
      const { cookie } = proxied;
      const { rawUrl } = await proxied.upload('mine', 'mine.txt');
      const addressAfter = async (rawUrl: string, forwardedFor: string) => {
        // The last-seen address is written at most once a minute.
        clock.advance(2 * 60_000);
        expect((await request(rawUrl, { headers: { cookie, 'x-forwarded-for': forwardedFor } })).status).toBe(200);
        // Asked without the proxy's header: had the raw request not written its address, this one would write 127.0.0.1.
        const sessions = await fetch(`${proxied.url}/api/v1/sessions`, { headers: { cookie } });
        const body = (await sessions.json()) as { sessions: Array<{ address: string | null }> };
        return body.sessions[0].address;
      };
      expect(await addressAfter(rawUrl, '203.0.113.7')).toBe('203.0.113.7');
      expect(await addressAfter(`${rawUrl}/`, '198.51.100.9')).toBe('198.51.100.9');
    } finally {
      await proxied.close();
    }
  });
});
