// Errors of the JSON API: always JSON {"error": …}, the right status, never a stack (docs/api.md).
import { afterAll, beforeAll } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { allowErrorLogs } from '../setup/expected-errors';

let fileId: string;
let storedName: string;

test.beforeAll(async ({ alice }) => {
  ({ id: fileId, storedName } = (await alice.upload('mine', 'mine.txt')).file);
});

/** A JSON error answer: this status, exactly one `error` string field, no trace of the code. */
async function expectJsonError(res: Response, status: number, error?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await res.text();
  expect(text).not.toContain('    at ');
  expect(text).not.toMatch(/node_modules|\.ts:\d+|\/work\//);
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error).toBe('string');
  if (error !== undefined) expect(body.error).toBe(error);
}

describe('unknown API routes', () => {
  test.for([
    ['GET', '/api/v1/nope'],
    ['POST', '/api/v1/nope'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/'],
    ['PUT', '/api/v1/files'],
    ['PATCH', '/api/v1/files'],
    ['PUT', '/api/v1/files/abc'],
    ['GET', '/api/v1/auth/login'],
    ['GET', '/api/v1/files/abc/extra'],
  ])('when %s %s is requested, then it answers 404 {"error":"Not found"}', async ([method, url], { app, alice }) => {
    for (const headers of [{ cookie: alice.cookie }, {}] as Record<string, string>[]) {
      await expectJsonError(await fetch(`${app.url}${url}`, { method, headers }), 404, 'Not found');
    }
  });
});

describe('protected routes without a session', () => {
  const routes: [string, string, () => BodyInit | undefined][] = [
    ['GET', '/api/v1/files', () => undefined],
    ['POST', '/api/v1/files', () => fileForm('intruder', 'intruder.txt')],
    ['DELETE', '/api/v1/files/{id}', () => undefined],
  ];

  test.for(routes)(
    'when %s %s comes without a cookie, then it answers 401 {"error":"Unauthorized"}',
    async ([method, url, body], { app }) => {
      const res = await fetch(`${app.url}${url.replace('{id}', fileId)}`, { method, body: body() });

      await expectJsonError(res, 401, 'Unauthorized');
    },
  );

  test.for(routes)(
    'when %s %s comes with an invalid token, then it answers 401 {"error":"Unauthorized"}',
    async ([method, url, body], { app }) => {
      const res = await fetch(`${app.url}${url.replace('{id}', fileId)}`, {
        method,
        body: body(),
        headers: { cookie: 'token=eyJhbGciOiJIUzI1NiJ9.e30.invalid' },
      });

      await expectJsonError(res, 401, 'Unauthorized');
    },
  );

  test('when refused requests came without a session, then the file is untouched and nothing was uploaded', async ({
    app,
  }) => {
    for (const method of ['DELETE', 'POST']) {
      await fetch(`${app.url}/api/v1/files${method === 'DELETE' ? `/${fileId}` : ''}`, {
        method,
        body: method === 'POST' ? fileForm('intruder', 'intruder.txt') : undefined,
      });
    }

    expect(await app.storedFiles()).toEqual([storedName]);
    expect(await app.rows('select id from files')).toEqual([{ id: fileId }]);
  });
});

describe('malformed requests', () => {
  test('when a file id in the path is a malformed %-escape, then it answers 400 with a JSON error, not a 500', async ({
    app,
    alice,
  }) => {
    await expectJsonError(
      await fetch(`${app.url}/api/v1/files/%E0%A4%A`, { method: 'DELETE', headers: { cookie: alice.cookie } }),
      400,
    );
  });

  test('when the login body is larger than any login, then it answers 413 with a JSON error', async ({ app }) => {
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'owner', password: 'x'.repeat(100_000) }),
    });

    await expectJsonError(res, 413);
  });

  test('when a JSON or form body is announced as gzip or deflate but is not (or is cut short), then 400 with a JSON error, not a 500', async ({
    app,
    alice,
  }) => {
    const { gzipSync } = await import('node:zlib');
    const cutGzip = gzipSync(JSON.stringify({ username: 'owner', password: 'a long passphrase' })).subarray(0, 12);
    const attempts: Array<[string, string, string | Blob, Record<string, string>]> = [
      ['/api/v1/auth/login', 'POST', 'garbage', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
      [
        '/api/v1/auth/login',
        'POST',
        'garbage',
        { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'deflate' },
      ],
      [
        '/api/v1/auth/login',
        'POST',
        new Blob([cutGzip]),
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      ],
      [
        `/api/v1/files/${fileId}`,
        'PATCH',
        'garbage',
        { 'content-type': 'application/json', 'content-encoding': 'gzip', cookie: alice.cookie },
      ],
    ];
    for (const [path, method, body, headers] of attempts) {
      await expectJsonError(await fetch(`${app.url}${path}`, { method, headers, body }), 400, 'Malformed request body');
    }
    // Nothing changed: the file is as it was, and a real gzip body still works.
    const login = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Blob([gzipSync(JSON.stringify({ username: 'owner', password: 'wrong password' }))]),
    });
    await expectJsonError(login, 401, 'Invalid username or password');
    expect((await app.rows('select id from files where id = ?', [fileId])).length).toBe(1);
  });

  test('when the login body is broken JSON, then the 400 carries no parser details or stack', async ({ app }) => {
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });

    await expectJsonError(res, 400);
  });
});

describe('server faults', () => {
  let broken: TestApp;
  let brokenCookie: string;

  beforeAll(async () => {
    broken = await startApp();
    await broken.createUser('victim');
    brokenCookie = await broken.login('victim');
  });
  afterAll(() => broken.close().catch(() => {}));

  test('when the storage cannot take the file, then it answers 503 with a clear JSON error and records nothing', async () => {
    allowErrorLogs(); // the failed write is logged
    const repair = await broken.breakStorageWrites();
    try {
      const res = await fetch(`${broken.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: brokenCookie },
        body: fileForm('lost', 'lost.txt'),
      });

      await expectJsonError(res, 503, 'Storage is unavailable. Try again in 10 seconds.');
    } finally {
      await repair();
    }
    expect(await broken.storedFiles()).toEqual([]);
    expect(await broken.incompleteFiles()).toEqual([]);
    expect(await broken.rows('select id from files')).toEqual([]);
  });

  test('when the database is gone, then the API still answers JSON {"error":"Internal server error"} on every route', async () => {
    allowErrorLogs(); // each request the database fails is logged
    await broken.closeDatabase();

    await expectJsonError(
      await fetch(`${broken.url}/api/v1/files`, { headers: { cookie: brokenCookie } }),
      500,
      'Internal server error',
    );
    await expectJsonError(
      await fetch(`${broken.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'victim', password: 'whatever-password' }),
      }),
      500,
      'Internal server error',
    );
    await expectJsonError(
      await fetch(`${broken.url}/api/v1/files/abc`, { method: 'DELETE', headers: { cookie: brokenCookie } }),
      500,
      'Internal server error',
    );
  });
});
