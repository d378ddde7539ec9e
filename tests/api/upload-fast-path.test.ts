// `POST /api/v1/files` is answered ahead of Express (upload-fast-path.ts, ADR 0022) and must
// answer exactly as the Express route does. `/api/v1/files` takes the fast path; `/api/v1/files/`
// (routing ignores a trailing slash) goes through Express: each case sends the same request both
// ways and compares what a client sees, and what is stored.
import { describe, expect } from 'vitest';
import { TOKEN_PREFIX } from '../../server/services/api-tokens';
import { openRequest, rawRequest, type RawResponse } from '../helpers/raw-http';
import { handMadeMultipart, type SharingApp, test } from '../sharing/support';

/** Headers that differ between any two answers: the moment, the request's id, the CSP nonce. */
const PER_REQUEST = new Set(['date', 'x-request-id']);

function seen(res: RawResponse, options: { newFile?: boolean } = {}) {
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter(
        ([name]) => !PER_REQUEST.has(name) && !(options.newFile && (name === 'etag' || name === 'content-length')),
      )
      .map(([name, value]) => [name, String(value).replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-N')]),
  );
  return { status: res.status, headers, body: options.newFile ? undefined : res.body.toString('utf8') };
}

/** One POST with Node's http client, the body sent whole with its length. */
function post(url: string, body: Buffer, headers: Record<string, string>): Promise<RawResponse> {
  return rawRequest(url, { method: 'POST', headers: { 'content-length': String(body.length), ...headers }, body });
}

let token: string;

test.beforeAll(async ({ app }) => {
  const created = await fetch(`${app.url}/api/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: app.cookie },
    body: JSON.stringify({ name: 'fast path' }),
  });
  token = ((await created.json()) as { token: string }).token;
});

/** The same upload on the fast path and through Express. */
async function bothWays(app: SharingApp, body: Buffer, headers: Record<string, string>) {
  const fast = await post(`${app.url}/api/v1/files`, body, headers);
  const express = await post(`${app.url}/api/v1/files/`, body, headers);
  return { fast, express };
}

const file = (content: string, name = 'notes.txt') =>
  handMadeMultipart(
    [`Content-Disposition: form-data; name="file"; filename="${name}"`, 'Content-Type: text/plain'],
    content,
  );

describe('uploads ahead of Express', () => {
  test('when a file is uploaded with the cookie or with an API token, then status, headers and the file object are those of the Express route, and both are stored', async ({
    app,
  }) => {
    const { body, contentType } = file('hello fast path\n'.repeat(300));
    const credentials: Array<Record<string, string>> = [{ cookie: app.cookie }, { authorization: `Bearer ${token}` }];
    for (const auth of credentials) {
      const { fast, express } = await bothWays(app, body, { 'content-type': contentType, ...auth });
      expect(fast.status).toBe(201);
      expect(seen(fast, { newFile: true })).toEqual(seen(express, { newFile: true }));
      expect(fast.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(fast.headers.etag).toMatch(/^W\/"/);
      expect(fast.headers['referrer-policy']).toBe('same-origin');
      const answers = [fast, express].map(
        (res) => JSON.parse(res.body.toString('utf8')) as { file: Record<string, unknown>; url: string },
      );
      // The new file's own values aside (its id, stored name and moment), the two answers are the same.
      const shape = ({ file: f, url }: (typeof answers)[number]) => ({
        ...f,
        id: 'ID',
        storedName: 'NAME',
        createdAt: 'AT',
        url: url.replace(String(f.id), 'ID'),
      });
      expect(shape(answers[0])).toEqual(shape(answers[1]));
      expect(answers[0].file.size).toBe(Buffer.byteLength('hello fast path\n'.repeat(300)));
      for (const answer of answers) {
        const raw = await fetch(`${answer.url}/raw`);
        expect(await raw.text()).toBe('hello fast path\n'.repeat(300));
      }
    }
  });

  test('when the upload is refused (no cookie, a bad or unknown token, a malformed body, no file, too large a declared length), then each answer is the Express route’s and nothing is stored', async ({
    app,
  }) => {
    const before = await app.storedFiles();
    const good = file('refused');
    const cases: Array<{ body: Buffer; headers: Record<string, string>; status: number }> = [
      { body: good.body, headers: { 'content-type': good.contentType }, status: 401 },
      { body: good.body, headers: { 'content-type': good.contentType, authorization: 'Bearer' }, status: 401 },
      {
        body: good.body,
        headers: { 'content-type': good.contentType, authorization: `Bearer ${TOKEN_PREFIX}${'x'.repeat(40)}` },
        status: 401,
      },
      {
        body: Buffer.from('not multipart'),
        headers: { 'content-type': 'text/plain', cookie: app.cookie },
        status: 400,
      },
      {
        body: Buffer.from('--x\r\nbroken'),
        headers: { 'content-type': 'multipart/form-data; boundary=x', cookie: app.cookie },
        status: 400,
      },
      {
        body: Buffer.from('--x--\r\n'),
        headers: { 'content-type': 'multipart/form-data; boundary=x', cookie: app.cookie },
        status: 400,
      },
    ];
    for (const { body, headers, status } of cases) {
      const { fast, express } = await bothWays(app, body, headers);
      expect(fast.status, JSON.stringify(headers)).toBe(status);
      expect(seen(fast)).toEqual(seen(express));
      expect(JSON.parse(fast.body.toString('utf8')).error).toEqual(expect.any(String));
    }
    // A declared length far past the limit: refused before the body is read (only the headers go out).
    const declared = await Promise.all(['/api/v1/files', '/api/v1/files/'].map((path) => oversizeAnswer(app, path)));
    expect(declared[0]).toEqual(declared[1]);
    expect(declared[0]).toContain('413');
    expect(await app.storedFiles()).toEqual(before);
  });

  test('when the upload comes with an Origin header, then Express’s cross-site guard judges it: another site is refused, our own origin is stored', async ({
    app,
  }) => {
    const { body, contentType } = file('from a page');
    const foreign = await post(`${app.url}/api/v1/files`, body, {
      'content-type': contentType,
      cookie: app.cookie,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body.toString('utf8'))).toEqual({ error: 'Cross-site request refused' });
    const own = await post(`${app.url}/api/v1/files`, body, {
      'content-type': contentType,
      cookie: app.cookie,
      origin: app.url,
    });
    expect(own.status).toBe(201);
  });
});

/** The status line and JSON of an upload declaring 100 GiB: the server must answer without reading it. */
async function oversizeAnswer(app: SharingApp, path: string): Promise<string> {
  const { request, answer } = openRequest(`${app.url}${path}`, {
    method: 'POST',
    agent: false,
    headers: {
      cookie: app.cookie,
      'content-type': 'multipart/form-data; boundary=x',
      'content-length': String(100 * 1024 ** 3),
    },
  });
  request.write('--x\r\n');
  try {
    const res = await answer;
    return `${res.status} ${res.headers['content-type']} ${res.headers.connection} ${res.text}`;
  } finally {
    request.destroy();
  }
}
