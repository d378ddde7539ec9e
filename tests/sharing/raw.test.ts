// GET/HEAD /f/:id/raw served like a good static server: lengths, ranges, validators,
// missing content (RFC 9110 §13–14); any other method refused with 405.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { onPostgresS3 } from '../helpers/test-backend';
import { request, test, type Uploaded } from './support';
import { allowErrorLogs } from '../setup/expected-errors';

const TEXT = 'The quick brown fox jumps over the lazy dog.\n'.repeat(20); // 900 bytes
let text: Uploaded;

test.beforeAll(async ({ app }) => {
  text = await app.upload(TEXT, 'fox.txt', 'text/plain');
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('GET /f/:id/raw — the whole file', () => {
  test('when a file is fetched, then it answers 200 with the exact bytes, Content-Length, Accept-Ranges and the validators', async () => {
    const res = await request(text.rawUrl);
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(TEXT);
    expect(res.headers['content-length']).toBe(String(TEXT.length));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(new Date(res.headers['last-modified']!).getTime()).toBe(
      Math.floor(new Date(text.file.createdAt).getTime() / 1000) * 1000,
    );
    expect(res.headers['cache-control']).toBe('no-cache');
    // Streamed with a known length: never chunked.
    expect(res.headers['transfer-encoding']).toBeUndefined();
  });

  test('when the same file is fetched twice, then the ETag is the same', async () => {
    const [a, b] = await Promise.all([request(text.rawUrl), request(text.rawUrl)]);
    expect(a.headers.etag).toBe(b.headers.etag);
  });

  test('when two different files of the same size are fetched, then their ETags differ', async ({ app }) => {
    const other = await app.upload('x'.repeat(TEXT.length), 'same-size.txt', 'text/plain');
    const [a, b] = await Promise.all([request(text.rawUrl), request(other.rawUrl)]);
    expect(a.headers.etag).not.toBe(b.headers.etag);
  });

  test('when a HEAD request is made, then it answers the same headers as GET and no body', async () => {
    const [get, head] = await Promise.all([request(text.rawUrl), request(text.rawUrl, { method: 'HEAD' })]);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of [
      'content-length',
      'content-type',
      'content-disposition',
      'etag',
      'last-modified',
      'accept-ranges',
      'cache-control',
    ]) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  test('when an empty file is fetched, then it answers 200 with Content-Length 0', async ({ app }) => {
    const empty = await app.upload('', 'empty.txt', 'text/plain');
    const res = await request(empty.rawUrl);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.body.length).toBe(0);
  });

  test('when a multi-MiB binary file is downloaded, then the bytes are exactly the uploaded ones (sha256)', async ({
    app,
  }) => {
    const content = randomBytes(6 * 1024 * 1024 + 12345);
    const big = await app.upload(content, 'big.bin', 'application/octet-stream');
    expect(big.file.size).toBe(content.length);
    const res = await fetch(`${big.rawUrl}?download=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(content.length));
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(content.length);
    expect(sha256(body)).toBe(sha256(content));
  });

  test('when a client goes away mid-download, then the server keeps serving', async ({ app }) => {
    const content = randomBytes(8 * 1024 * 1024);
    const big = await app.upload(content, 'abandoned.bin');
    await new Promise<void>((resolve, reject) => {
      const req = http.get(big.rawUrl, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    });
    const res = await request(text.rawUrl);
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(TEXT);
  });
});

describe('GET /f/:id/raw — byte ranges', () => {
  const size = TEXT.length;

  test('when a closed range is asked, then it answers 206 with that slice, Content-Range and Content-Length', async () => {
    const res = await request(text.rawUrl, { headers: { range: 'bytes=4-8' } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 4-8/${size}`);
    expect(res.headers['content-length']).toBe('5');
    expect(res.body.toString('utf8')).toBe('quick');
  });

  test('when a suffix range bytes=-N is asked, then it answers the last N bytes', async () => {
    const res = await request(text.rawUrl, { headers: { range: 'bytes=-5' } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${size - 5}-${size - 1}/${size}`);
    expect(res.body.toString('utf8')).toBe(TEXT.slice(-5));
  });

  test('when a suffix range is longer than the file, then it answers the whole file as a 206', async () => {
    const res = await request(text.rawUrl, { headers: { range: `bytes=-${size * 2}` } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-${size - 1}/${size}`);
    expect(res.body.toString('utf8')).toBe(TEXT);
  });

  test('when an open range bytes=N- is asked, then it answers from N to the end', async () => {
    const res = await request(text.rawUrl, { headers: { range: 'bytes=850-' } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 850-${size - 1}/${size}`);
    expect(res.headers['content-length']).toBe(String(size - 850));
    expect(res.body.toString('utf8')).toBe(TEXT.slice(850));
  });

  test('when a range ends past the end of the file, then it is cut at the last byte', async () => {
    const res = await request(text.rawUrl, { headers: { range: `bytes=${size - 3}-${size + 1000}` } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${size - 3}-${size - 1}/${size}`);
    expect(res.body.toString('utf8')).toBe(TEXT.slice(-3));
  });

  test('when a range starts past the end of the file, then it answers 416 with Content-Range bytes */size', async () => {
    const res = await request(text.rawUrl, { headers: { range: `bytes=${size}-` } });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size}`);
    expect(res.body.length).toBe(0);
  });

  test('when any range is asked of an empty file, then it answers 416 with bytes */0', async ({ app }) => {
    const empty = await app.upload('', 'empty-range.txt', 'text/plain');
    const res = await request(empty.rawUrl, { headers: { range: 'bytes=0-' } });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */0');
  });

  test('when a HEAD request carries a range, then it answers 206 headers and no body', async () => {
    const res = await request(text.rawUrl, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-9/${size}`);
    expect(res.headers['content-length']).toBe('10');
    expect(res.body.length).toBe(0);
  });

  test('when several ranges are asked, then it answers the whole file with 200 (allowed by RFC 9110)', async () => {
    const res = await request(text.rawUrl, { headers: { range: 'bytes=0-1,100-101' } });
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(TEXT);
  });

  test('when the Range header is malformed or not in bytes, then it is ignored and the whole file answered', async () => {
    for (const range of ['bytes=abc', 'items=0-5', 'bytes=5-2']) {
      const res = await request(text.rawUrl, { headers: { range } });
      expect(res.status, range).toBe(200);
      expect(res.body.toString('utf8'), range).toBe(TEXT);
    }
  });

  test('when overlapping or adjacent ranges are asked, then they are served as the one range they form', async () => {
    const res = await request(text.rawUrl, { headers: { range: 'bytes=0-3, 4-8,2-5' } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-8/${size}`);
    expect(res.body.toString('utf8')).toBe('The quick');
  });

  test('when a range of a multi-MiB file is asked deep inside it, then those exact bytes come back', async ({
    app,
  }) => {
    const content = randomBytes(3 * 1024 * 1024);
    const big = await app.upload(content, 'deep.bin');
    const start = 2 * 1024 * 1024 + 7;
    const end = start + 300_000;
    const res = await request(big.rawUrl, { headers: { range: `bytes=${start}-${end}` } });
    expect(res.status).toBe(206);
    expect(sha256(res.body)).toBe(sha256(content.subarray(start, end + 1)));
  });
});

describe('GET /f/:id/raw — conditional requests', () => {
  test('when If-None-Match carries the ETag, then it answers 304 with no body', async () => {
    const first = await request(text.rawUrl);
    const res = await request(text.rawUrl, { headers: { 'if-none-match': first.headers.etag! } });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers.etag).toBe(first.headers.etag);
  });

  test('when If-None-Match lists the ETag among others (or is *), then it answers 304', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    for (const value of [`"nope", ${headers.etag}`, `W/${headers.etag}`, '*']) {
      const res = await request(text.rawUrl, { headers: { 'if-none-match': value } });
      expect(res.status, value).toBe(304);
    }
  });

  test('when If-None-Match carries another ETag, then it answers 200 with the content', async () => {
    const res = await request(text.rawUrl, { headers: { 'if-none-match': '"something-else"' } });
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(TEXT);
  });

  test('when If-Modified-Since is the Last-Modified date or later, then it answers 304', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    const lastModified = headers['last-modified']!;
    for (const since of [lastModified, new Date(Date.now() + 60_000).toUTCString()]) {
      const res = await request(text.rawUrl, { headers: { 'if-modified-since': since } });
      expect(res.status, since).toBe(304);
      expect(res.body.length).toBe(0);
    }
  });

  test('when If-Modified-Since is earlier than Last-Modified, then it answers 200 with the content', async () => {
    const res = await request(text.rawUrl, { headers: { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(TEXT);
  });

  test('when If-None-Match does not match, then If-Modified-Since is ignored and it answers 200', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    const res = await request(text.rawUrl, {
      headers: { 'if-none-match': '"other"', 'if-modified-since': headers['last-modified']! },
    });
    expect(res.status).toBe(200);
  });

  test('when If-None-Match matches, then an older If-Modified-Since does not undo the 304 (RFC 9110 §13.2.2)', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    const res = await request(text.rawUrl, {
      headers: { 'if-none-match': headers.etag!, 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    });
    expect(res.status).toBe(304);
  });

  test('when If-Match or If-Unmodified-Since do not hold, then it answers 412; when they hold, 200', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    const failed: Array<Record<string, string>> = [
      { 'if-match': '"other"' },
      { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    ];
    for (const condition of failed) {
      const res = await request(text.rawUrl, { headers: condition });
      expect(res.status, JSON.stringify(condition)).toBe(412);
      expect(res.body.length).toBe(0);
    }
    const held: Array<Record<string, string>> = [
      { 'if-match': headers.etag! },
      { 'if-match': '*' },
      { 'if-unmodified-since': headers['last-modified']! },
    ];
    for (const condition of held) {
      const res = await request(text.rawUrl, { headers: condition });
      expect(res.status, JSON.stringify(condition)).toBe(200);
    }
  });

  test('when a HEAD request carries a matching If-None-Match, then it answers 304', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    const res = await request(text.rawUrl, { method: 'HEAD', headers: { 'if-none-match': headers.etag! } });
    expect(res.status).toBe(304);
  });

  test('when If-Range carries the current ETag or date, then the range is honoured (206)', async () => {
    const { headers } = await request(text.rawUrl, { method: 'HEAD' });
    for (const ifRange of [headers.etag!, headers['last-modified']!]) {
      const res = await request(text.rawUrl, { headers: { range: 'bytes=0-2', 'if-range': ifRange } });
      expect(res.status, ifRange).toBe(206);
      expect(res.body.toString('utf8')).toBe('The');
    }
  });

  test('when If-Range carries another ETag or date, then the whole file is answered (200)', async () => {
    for (const ifRange of ['"stale-etag"', 'Mon, 01 Jan 2001 00:00:00 GMT']) {
      const res = await request(text.rawUrl, { headers: { range: 'bytes=0-2', 'if-range': ifRange } });
      expect(res.status, ifRange).toBe(200);
      expect(res.body.toString('utf8')).toBe(TEXT);
    }
  });
});

describe('/f/:id/raw — methods other than GET and HEAD', () => {
  test('when POST, PUT, PATCH, DELETE or OPTIONS is sent to a raw link, known or not, then 405 with Allow: GET, HEAD and an HTML page, and the file is unchanged', async ({
    app,
  }) => {
    for (const id of [text.file.id, 'AAAAAAAAAAAAAAAAAAAAAA']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        // With the owner's cookie: even the owner cannot change or delete a file through it.
        const res = await request(`${app.url}/f/${id}/raw`, { method, headers: { cookie: app.cookie } });
        expect([method, id, res.status, res.headers.allow]).toEqual([method, id, 405, 'GET, HEAD']);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.body.toString('utf8')).toContain('<title>Method not allowed</title>');
      }
    }
    const after = await request(text.rawUrl);
    expect([after.status, after.body.toString('utf8')]).toEqual([200, TEXT]);
  });
});

describe('GET /f/:id/raw — what is not there', () => {
  test('when the id is unknown, then it answers 404 (GET and HEAD)', async ({ app }) => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'nope', 'a.b', '..']) {
      const get = await request(`${app.url}/f/${id}/raw`);
      expect(get.status, id).toBe(404);
      const head = await request(`${app.url}/f/${id}/raw`, { method: 'HEAD' });
      expect(head.status, id).toBe(404);
    }
  });

  // Small content is read in one go, larger content streamed: both ways are asked.
  const SIZES = [9, 200 * 1024];

  test('when the record exists but its content was removed from storage, then it answers 404, never 500 or a hang', async ({
    app,
  }) => {
    for (const size of SIZES) {
      const gone = await app.upload('g'.repeat(size), 'gone.txt', 'text/plain');
      await app.removeStored(gone.file.storedName);
      const started = Date.now();
      const etag = `"${gone.file.id}-${size.toString(36)}"`;
      const cases: Array<{ method?: string; headers?: Record<string, string> }> = [
        {},
        { method: 'HEAD' },
        { headers: { range: 'bytes=0-3' } },
        { headers: { range: `bytes=${size + 10}-` } },
        { headers: { 'if-none-match': etag } },
      ];
      for (const options of cases) {
        const res = await request(gone.rawUrl, options);
        expect(res.status, `${size} bytes, ${JSON.stringify(options)}`).toBe(404);
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      // The share page says the same.
      const page = await request(gone.url);
      expect(page.status).toBe(404);
    }
  });

  // Only the disk's files can be cut short under the service.
  test.skipIf(onPostgresS3)(
    'when the content was cut short on the disk, then the download fails at once instead of ending short or hanging',
    async ({ app }) => {
      allowErrorLogs(); // the short read is logged
      for (const size of SIZES) {
        const cut = await app.upload('c'.repeat(size), 'cut.txt', 'text/plain');
        fs.truncateSync(path.join(app.config.uploadDir, cut.file.storedName), Math.floor(size / 2));
        const started = Date.now();
        // On a kept-alive connection, as browsers fetch: a response that merely ended short would
        // leave the client waiting for the rest until the server drops the idle connection.
        const outcome = await keptAliveGet(cut.rawUrl).then(
          (res) => `${res.status} ${res.bytes} bytes`,
          (error: Error) => `failed: ${error.message}`,
        );
        // Small content is read before any header: a 500. Streamed content: the connection is cut.
        expect(outcome, `${size} bytes`).toMatch(size < 64 * 1024 ? /^500 / : /^failed: /);
        expect(Date.now() - started, `${size} bytes`).toBeLessThan(3_000);
      }
    },
  );

  // A bucket has no folders: this is the disk's own case.
  test.skipIf(onPostgresS3)(
    'when the content was replaced by a folder of the same name, then it answers 404',
    async ({ app }) => {
      for (const size of SIZES) {
        const odd = await app.upload('o'.repeat(size), 'odd.txt', 'text/plain');
        const stored = path.join(app.config.uploadDir, odd.file.storedName);
        fs.rmSync(stored);
        fs.mkdirSync(stored);
        try {
          for (const options of [{}, { method: 'HEAD' }, { headers: { range: 'bytes=0-3' } }]) {
            expect((await request(odd.rawUrl, options)).status, `${size} bytes, ${JSON.stringify(options)}`).toBe(404);
          }
        } finally {
          fs.rmdirSync(stored);
        }
      }
    },
  );
});

/** A GET on a keep-alive connection: the status and how many body bytes came, or the failure. */
function keptAliveGet(url: string): Promise<{ status: number; bytes: number }> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
      res.on('aborted', () => reject(new Error('aborted')));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no end within 10 s')));
  }).finally(() => agent.destroy());
}
