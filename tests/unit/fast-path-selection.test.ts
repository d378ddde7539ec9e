// Which requests the fast paths take (ADR 0022). The comparison suites
// (tests/api/upload-fast-path.test.ts, tests/sharing/raw-fast-path.test.ts) send each case to a
// spelling that takes the fast path and to one that goes through Express, and compare: they would
// still pass if the fast path were never taken, comparing Express with itself. These pin the
// choice itself, and that requests the fast paths must not take (a browser's, a password's) go to
// Express; tests/api/fast-path-dispatch.test.ts checks that the listener acts on it.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { rawFastPathFileId } from '../../server/doors/raw/raw-file-fast-path';
import { isFastPathUpload } from '../../server/doors/rest/upload-fast-path';

const ID = 'AbCdEfGhIjKlMnOpQrStUv';

/** The parts of a request the choice reads: method, path and headers. */
function request(method: string, url: string, headers: Record<string, string> = {}): IncomingMessage {
  return { method, url, headers } as IncomingMessage;
}

describe('the upload fast path', () => {
  it('when a script or screenshot tool posts to /api/v1/files (no Origin), then the fast path takes it', () => {
    expect(isFastPathUpload(request('POST', '/api/v1/files', { cookie: 'sid=x' }))).toBe(true);
    expect(
      isFastPathUpload(
        request('POST', '/api/v1/files', { authorization: 'Bearer fsk_x', 'sec-fetch-site': 'same-origin' }),
      ),
    ).toBe(true);
  });

  it('when the request has an Origin, is marked cross-site, is another method or spelling, then Express takes it', () => {
    expect(isFastPathUpload(request('POST', '/api/v1/files', { origin: 'https://evil.example' }))).toBe(false);
    expect(isFastPathUpload(request('POST', '/api/v1/files', { 'sec-fetch-site': 'cross-site' }))).toBe(false);
    for (const url of ['/api/v1/files/', '/api/v1/files?x=1', '/API/v1/files', '/api/v1/files/abc']) {
      expect(isFastPathUpload(request('POST', url)), url).toBe(false);
    }
    expect(isFastPathUpload(request('GET', '/api/v1/files'))).toBe(false);
  });
});

describe('the raw link fast path', () => {
  it('when a raw link is fetched with GET or HEAD, then the fast path takes it with its file id', () => {
    expect(rawFastPathFileId(request('GET', `/f/${ID}/raw`))).toBe(ID);
    expect(rawFastPathFileId(request('HEAD', `/f/${ID}/raw`, { range: 'bytes=0-1' }))).toBe(ID);
  });

  it('when it carries a share password, a query string, another spelling or method, then Express takes it', () => {
    expect(rawFastPathFileId(request('GET', `/f/${ID}/raw`, { 'x-share-password': 'secret' }))).toBeNull();
    for (const url of [
      `/f/${ID}/raw/`,
      `/f/${ID}/raw?download`,
      `/f/${ID}`,
      `/F/${ID}/raw`,
      `/f/${ID}x/raw`,
      '/f/short/raw',
    ]) {
      expect(rawFastPathFileId(request('GET', url)), url).toBeNull();
    }
    expect(rawFastPathFileId(request('POST', `/f/${ID}/raw`))).toBeNull();
  });
});
