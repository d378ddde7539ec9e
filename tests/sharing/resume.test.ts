// Resuming a download of a limited link (ADR 0014, "Resuming a download"): the GET that counts a
// visitor's download sets a resume grant, with which the rest of that download (a range further
// in) is served even once the link is used up, counting nothing; and nothing else is.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signResumeGrant } from '../../server/auth/resume-grant';
import { TEST_SECRET, TestClock } from '../helpers/app';
import { cookieAttributes } from '../helpers/pages-fixtures';
import { request, startSharingApp, type SharingApp, type Uploaded } from './support';

const HOUR = 3600_000;
/** 1 MiB: far more than the first chunk a client reads, so a cut download really is cut. */
const CONTENT = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => i % 251));

let app: SharingApp;
let clock: TestClock;

beforeAll(async () => {
  clock = new TestClock();
  // No sweep during these tests: they look at used-up and expired links, which it removes.
  app = await startSharingApp({}, { clock, expirySweepEveryMs: 24 * HOUR });
});
afterAll(() => app.close());

interface CutDownload {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes that arrived before the connection was dropped. */
  received: Buffer;
}

/** A GET whose connection drops after the first chunk of the body, as a download cut off does. */
function cutDownload(url: string, headers: Record<string, string> = {}): Promise<CutDownload> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers, agent: false }, (res) => {
      res.once('data', (chunk: Buffer) => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, received: chunk });
      });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

/** The resume grant an answer set for this file, as a Cookie header sends it back. */
function resumeCookieOf(headers: http.IncomingHttpHeaders, shared: Uploaded): string {
  const setCookie = (headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith(`resume_${shared.file.id}=`));
  expect(setCookie, 'the resume grant').toBeDefined();
  return setCookie!.split(';')[0];
}

/** The same grant's value sent under another file's cookie name. */
function grantValue(cookie: string): string {
  return cookie.slice(cookie.indexOf('=') + 1);
}

async function downloadsOf(shared: Uploaded): Promise<number> {
  const [row] = await app.rows('select downloads from files where id = ?', [shared.file.id]);
  return Number(row.downloads);
}

function uploadOnce(fields: Record<string, string> = {}): Promise<Uploaded> {
  return app.upload(CONTENT, 'big.bin', 'application/octet-stream', { maxDownloads: '1', ...fields });
}

/** A visitor's whole download of a link: its resume cookie and ETag. */
async function downloadWhole(shared: Uploaded, headers: Record<string, string> = {}): Promise<{ cookie: string; etag: string }> {
  const res = await request(shared.rawUrl, { headers });
  expect(res.status).toBe(200);
  expect(res.body.equals(CONTENT)).toBe(true);
  return { cookie: resumeCookieOf(res.headers, shared), etag: String(res.headers.etag) };
}

describe('resuming a download of a limited link', () => {
  it('when a visitor’s download of a one-download link is cut off, then a Range from where it stopped with the cookie its answer set gets exactly the rest, and the link still counts one download', async () => {
    const once = await uploadOnce();
    const first = await cutDownload(once.rawUrl);
    expect(first.status).toBe(200);
    const stoppedAt = first.received.length;
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThan(CONTENT.length);
    const setCookie = first.headers['set-cookie']!.find((cookie) => cookie.startsWith(`resume_${once.file.id}=`))!;
    expect(cookieAttributes(setCookie)).toEqual({ 'max-age': '86400', path: `/f/${once.file.id}/raw`, httponly: true, samesite: 'Lax' });
    const cookie = resumeCookieOf(first.headers, once);
    // The link is used up: a new download is refused.
    expect((await request(once.rawUrl)).status).toBe(410);

    // What a browser's or curl's resume sends: the rest, if the content is still the same.
    const rest = await request(once.rawUrl, { headers: { cookie, range: `bytes=${stoppedAt}-`, 'if-range': String(first.headers.etag) } });
    expect(rest.status).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes ${stoppedAt}-${CONTENT.length - 1}/${CONTENT.length}`);
    expect(Buffer.concat([first.received, rest.body]).equals(CONTENT)).toBe(true);
    expect(rest.headers['cache-control']).toBe('private, no-store');
    // Counting nothing, it grants nothing new.
    expect(rest.headers['set-cookie']).toBeUndefined();
    // The same through Express (`/raw/`, which the cookie's path covers).
    const again = await request(`${once.rawUrl}/`, { headers: { cookie, range: `bytes=${stoppedAt + 10}-` } });
    expect(again.status).toBe(206);
    expect(again.body.equals(CONTENT.subarray(stoppedAt + 10))).toBe(true);
    expect(await downloadsOf(once)).toBe(1);
  });

  it('when the rest of a download is asked without the resume cookie, then the used-up link answers 410, and with it 206', async () => {
    const once = await uploadOnce();
    const { cookie, etag } = await downloadWhole(once);
    const without = await request(once.rawUrl, { headers: { range: 'bytes=1000-', 'if-range': etag } });
    expect(without.status).toBe(410);
    expect(without.body.toString()).toContain('This link has reached its download limit.');
    expect((await request(once.rawUrl, { headers: { cookie, range: 'bytes=1000-', 'if-range': etag } })).status).toBe(206);
    expect(await downloadsOf(once)).toBe(1);
  });

  it('when the resume cookie carries a grant for another file or another content, then 410, while the file’s own grant gets 206', async () => {
    const a = await uploadOnce();
    const b = await uploadOnce();
    const own = await downloadWhole(a);
    const other = await downloadWhole(b);
    const range = 'bytes=1000-';
    // b's grant under a's cookie name: signed for b.
    const borrowed = `resume_${a.file.id}=${grantValue(other.cookie)}`;
    expect((await request(a.rawUrl, { headers: { cookie: borrowed, range } })).status).toBe(410);
    // A grant for file a signed with the right key, but for content with another ETag.
    const stale = await signResumeGrant(a.file.id, `"${a.file.id}-0"`, new TextEncoder().encode(TEST_SECRET), Math.floor(clock.now() / 1000));
    expect((await request(a.rawUrl, { headers: { cookie: `resume_${a.file.id}=${stale}`, range } })).status).toBe(410);
    // A forged one neither.
    expect((await request(a.rawUrl, { headers: { cookie: `resume_${a.file.id}=forged.token.value`, range } })).status).toBe(410);
    const served = await request(a.rawUrl, { headers: { cookie: own.cookie, range } });
    expect(served.status).toBe(206);
    expect(served.body.equals(CONTENT.subarray(1000))).toBe(true);
  });

  it('when the used-up link has also expired, then the rest of the download is 410 even with the grant', async () => {
    const once = await uploadOnce({ expiresIn: '3600' });
    const { cookie } = await downloadWhole(once);
    const range = 'bytes=1000-';
    expect((await request(once.rawUrl, { headers: { cookie, range } })).status).toBe(206);
    clock.advance(2 * HOUR);
    const expired = await request(once.rawUrl, { headers: { cookie, range } });
    expect(expired.status).toBe(410);
    expect(expired.body.toString()).toContain('This link has expired.');
  });

  it('when the grant comes with a GET from byte 0 (a new download), a HEAD or a range from byte 0 on the used-up link, then 410, while a range further in gets 206', async () => {
    const once = await uploadOnce();
    const { cookie } = await downloadWhole(once);
    const refused: Array<{ method?: string; range?: string }> = [{}, { method: 'HEAD' }, { range: 'bytes=0-' }, { range: 'bytes=0-99' }];
    for (const { method, range } of refused) {
      const res = await request(once.rawUrl, { method, headers: range ? { cookie, range } : { cookie } });
      expect(res.status, `${method ?? 'GET'} ${range ?? ''}`).toBe(410);
    }
    const rest = await request(once.rawUrl, { headers: { cookie, range: 'bytes=1-' } });
    expect(rest.status).toBe(206);
    expect(rest.body.equals(CONTENT.subarray(1))).toBe(true);
    expect(await downloadsOf(once)).toBe(1);
  });

  it('when the used-up link is password-protected, then the rest of the download needs the password besides the grant', async () => {
    const password = 'resume pony';
    const once = await uploadOnce({ password });
    const { cookie } = await downloadWhole(once, { 'x-share-password': password });
    const range = 'bytes=1000-';
    expect((await request(once.rawUrl, { headers: { cookie, range } })).status).toBe(401);
    const rest = await request(once.rawUrl, { headers: { cookie, range, 'x-share-password': password } });
    expect(rest.status).toBe(206);
    expect(rest.body.equals(CONTENT.subarray(1000))).toBe(true);
  });

  it('when a link without a limit is downloaded, or its owner downloads a limited one, then the answer sets no cookie, unlike a visitor’s counted download of a limited link', async () => {
    const unlimited = await app.upload('no limit here', 'free.txt', 'text/plain');
    const free = await request(unlimited.rawUrl);
    expect(free.status).toBe(200);
    expect(free.headers['set-cookie']).toBeUndefined();
    const limited = await app.upload('limited', 'limited.txt', 'text/plain', { maxDownloads: '2' });
    const owners = await request(limited.rawUrl, { headers: { cookie: app.cookie } });
    expect(owners.status).toBe(200);
    expect((owners.headers['set-cookie'] ?? []).filter((cookie) => cookie.startsWith('resume_'))).toEqual([]);
    resumeCookieOf((await request(limited.rawUrl)).headers, limited);
  });
});
