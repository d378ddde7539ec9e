// Every request starts the same way whichever door answers it (server/http/request-start.ts,
// ADR 0073): the raw link and the upload answered ahead of Express carry the same headers as the
// same requests through Express, apart from those about the content, and so does every other answer.
import { describe, expect } from 'vitest';
import { handMadeMultipart, request, type RawResponse, test, type Uploaded } from '../sharing/support';

/** About the content or the moment: set by the route, not by the start of the request. */
const ABOUT_CONTENT = new Set([
  'content-type',
  'content-length',
  'content-disposition',
  'content-range',
  'etag',
  'last-modified',
  'accept-ranges',
  'date',
]);

/** What a request starts with, on every door. */
const START_HEADERS = [
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'content-security-policy',
  'x-request-id',
];

/** Every header not about the content, with the values that differ on each request made alike. */
function nonContentHeaders(res: RawResponse): Record<string, string> {
  return Object.fromEntries(
    Object.entries(res.headers)
      .filter(([name]) => !ABOUT_CONTENT.has(name))
      .map(([name, value]) => [
        name,
        name === 'x-request-id' ? 'ID' : String(value).replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-N'),
      ]),
  );
}

function post(url: string, body: Buffer, headers: Record<string, string>): Promise<RawResponse> {
  return fetch(url, { method: 'POST', body: new Uint8Array(body), headers }).then(async (res) => {
    const bytes = Buffer.from(await res.arrayBuffer());
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      rawHeaders: [],
      body: bytes,
      text: bytes.toString('utf8'),
    };
  });
}

let binary: Uploaded;

test.beforeAll(async ({ app }) => {
  binary = await app.upload(new Uint8Array(3000).fill(9), 'data.bin');
});

describe('the start of every request', () => {
  test('when a raw file is downloaded on the fast path and with a query string through Express, then both carry the same headers apart from those about the content', async ({
    app,
  }) => {
    for (const headers of [{}, { cookie: app.cookie }] as Array<Record<string, string>>) {
      // `/f/<id>/raw` is answered ahead of Express; any query string goes through it (one the
      // route does not read, so that the content is served alike).
      const fast = await request(binary.rawUrl, { headers });
      const express = await request(`${binary.rawUrl}?via=express`, { headers });
      expect([fast.status, express.status]).toEqual([200, 200]);
      expect(nonContentHeaders(fast)).toEqual(nonContentHeaders(express));
      for (const name of START_HEADERS) expect(fast.headers[name], name).toBeDefined();
    }
  });

  test('when a file is uploaded on the fast path and with a query string through Express, then both carry the same headers apart from those about the content', async ({
    app,
  }) => {
    const { body, contentType } = handMadeMultipart(
      ['Content-Disposition: form-data; name="file"; filename="a.txt"', 'Content-Type: text/plain'],
      'started alike\n',
    );
    const headers = { 'content-type': contentType, cookie: app.cookie };
    // Exactly `/api/v1/files` is answered ahead of Express; a query string goes through it.
    const fast = await post(`${app.url}/api/v1/files`, body, headers);
    const express = await post(`${app.url}/api/v1/files?via=express`, body, headers);
    expect([fast.status, express.status]).toEqual([201, 201]);
    expect(nonContentHeaders(fast)).toEqual(nonContentHeaders(express));
    for (const name of START_HEADERS) expect(fast.headers[name], name).toBeDefined();
  });

  test('when the health check, an API read or an unknown path is answered, then it carries the headers every request starts with', async ({
    app,
  }) => {
    for (const path of ['/healthz', '/api/v1/me', '/no/such/path']) {
      const res = await request(`${app.url}${path}`, { headers: { cookie: app.cookie } });
      for (const name of START_HEADERS) expect(res.headers[name], `${path}: ${name}`).toBeDefined();
    }
  });
});
