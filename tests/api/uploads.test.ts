import { afterAll, beforeAll } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { openRequest } from '../helpers/raw-http';
import { BOUNDARY, multipartBody, MULTIPART_TYPE, openUpload, partHead, poll, postFiles } from '../helpers/multipart';

const LIMIT = 1000;
test.override('appEnv', { MAX_UPLOAD_BYTES: String(LIMIT) });

async function fileRows(target: TestApp): Promise<number> {
  const [{ n }] = await target.rows('select count(*) as n from files');
  return Number(n);
}

/** What is stored now; `expectUnchanged` checks that nothing was added since. */
async function snapshot(target: TestApp) {
  const files = await target.storedFiles();
  const rows = await fileRows(target);
  return {
    async expectUnchanged() {
      expect(await target.storedFiles()).toEqual(files);
      expect(await target.incompleteFiles()).toEqual([]);
      expect(await fileRows(target)).toBe(rows);
    },
  };
}

async function expectError(res: Response, status: number, error?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(Object.keys(body)).toEqual(['error']);
  if (error !== undefined) expect(body.error).toBe(error);
  else expect(typeof body.error).toBe('string');
}

describe('size limit (MAX_UPLOAD_BYTES=1000)', () => {
  test('when the file is exactly MAX_UPLOAD_BYTES long, then it is accepted whole', async ({ app, alice }) => {
    const res = await postFiles(
      app.url,
      alice.cookie,
      multipartBody([{ name: 'file', filename: 'max.bin', content: new Uint8Array(LIMIT).fill(7) }]),
      MULTIPART_TYPE,
    );

    expect(res.status).toBe(201);
    const { file } = await res.json();
    expect(file.size).toBe(LIMIT);
    expect(await app.readStored(file.storedName)).toEqual(Buffer.alloc(LIMIT, 7));
  });

  test('when the file is one byte over the limit, then it answers 413 {"error":"File too large"} and stores nothing', async ({
    app,
    alice,
  }) => {
    const before = await snapshot(app);

    const res = await upload(alice, new Uint8Array(LIMIT + 1), 'over.bin');

    await expectError(res, 413, 'File too large');
    await before.expectUnchanged();
  });

  test('when the body declares a length far past the limit, then it answers 413 {"error":"File too large"} and stores nothing', async ({
    app,
    alice,
  }) => {
    const before = await snapshot(app);

    const res = await upload(alice, new Uint8Array(3 * 1024 * 1024), 'huge.bin');

    await expectError(res, 413, 'File too large');
    await before.expectUnchanged();
  });

  test('when an oversized file is streamed without Content-Length (chunked), then it answers 413 and stores nothing', async ({
    app,
    alice,
  }) => {
    const before = await snapshot(app);
    const body = multipartBody([{ name: 'file', filename: 'chunked.bin', content: new Uint8Array(LIMIT * 5) }]);

    const { status, text } = await postPieces(app.url, {
      headers: { cookie: alice.cookie, 'content-type': MULTIPART_TYPE, 'transfer-encoding': 'chunked' },
      chunks: [body.subarray(0, 500), body.subarray(500, 3000), body.subarray(3000)],
    });

    expect(status).toBe(413);
    expect(JSON.parse(text)).toEqual({ error: 'File too large' });
    await before.expectUnchanged();
  });

  test('when a file was refused as too large, then the same user can upload a small one right after', async ({
    alice,
  }) => {
    await expectError(await upload(alice, new Uint8Array(LIMIT + 1), 'over.bin'), 413);

    const res = await upload(alice, 'small', 'small.txt');

    expect(res.status).toBe(201);
  });

  function upload(alice: TestUser, content: string | Uint8Array, name: string) {
    return alice.fetch('/api/v1/files', { method: 'POST', body: fileForm(content, name) });
  }
});

describe('bodies without a file', () => {
  test('when the file part has an empty filename (a browser with nothing chosen), then it answers 400 {"error":"No file uploaded"}', async ({
    app,
    alice,
  }) => {
    const before = await snapshot(app);
    const body = multipartBody([{ name: 'file', filename: '', contentType: 'application/octet-stream', content: '' }]);

    await expectError(await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE), 400, 'No file uploaded');
    await before.expectUnchanged();
  });

  test('when the part with an empty filename still carries bytes, then it is not taken as a file either', async ({
    app,
    alice,
  }) => {
    const before = await snapshot(app);
    const body = multipartBody([{ name: 'file', filename: '', content: 'sneaky' }]);

    await expectError(await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE), 400, 'No file uploaded');
    await before.expectUnchanged();
  });

  test('when the form has only text fields, then it answers 400 {"error":"No file uploaded"}', async ({
    app,
    alice,
  }) => {
    const body = multipartBody([
      { name: 'title', content: 'hello' },
      { name: 'file', content: 'not a file part' },
    ]);

    await expectError(await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE), 400, 'No file uploaded');
  });

  test('when the multipart body has no parts at all, then it answers 400 {"error":"No file uploaded"}', async ({
    app,
    alice,
  }) => {
    await expectError(
      await postFiles(app.url, alice.cookie, `--${BOUNDARY}--\r\n`, MULTIPART_TYPE),
      400,
      'No file uploaded',
    );
  });

  test('when an empty-filename part comes before a real file, then the real file is stored', async ({ app, alice }) => {
    const body = multipartBody([
      { name: 'file', filename: '', content: '' },
      { name: 'file', filename: 'real.txt', content: 'real' },
    ]);

    const res = await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE);

    expect(res.status).toBe(201);
    expect((await res.json()).file.originalName).toBe('real.txt');
  });
});

describe('bodies that are not (well-formed) multipart', () => {
  test.for([
    ['text/plain', 'just text'],
    ['application/json', '{"file":"x"}'],
    ['application/x-www-form-urlencoded', 'file=x'],
    ['application/octet-stream', 'raw bytes'],
    ['multipart/form-data', 'no boundary parameter'],
  ])(
    'when the content type is %s, then it answers 400 with a JSON error and stores nothing',
    async ([type, body], { app, alice }) => {
      const before = await snapshot(app);

      await expectError(await postFiles(app.url, alice.cookie, body, type), 400);
      await before.expectUnchanged();
    },
  );

  test('when there is no content type at all, then it answers 400 with a JSON error', async ({ app, alice }) => {
    const { status, text } = await postPieces(app.url, {
      headers: { cookie: alice.cookie, 'content-length': '5' },
      chunks: [Buffer.from('hello')],
    });

    expect(status).toBe(400);
    expect(Object.keys(JSON.parse(text))).toEqual(['error']);
  });

  test.for([
    ['garbage without the boundary', 'this is not multipart at all'],
    [
      'a file part cut off before its closing boundary',
      `${partHead({ name: 'file', filename: 'cut.txt' })}half of the cont`,
    ],
    [
      'a part header that never ends',
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n`,
    ],
  ])(
    'when the body is %s, then it answers 400 with a JSON error and stores nothing',
    async ([, body], { app, alice }) => {
      const before = await snapshot(app);

      await expectError(await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE), 400);
      await before.expectUnchanged();
    },
  );
});

describe('a client that aborts mid-upload', () => {
  let big: TestApp;
  let bigCookie: string;

  beforeAll(async () => {
    big = await startApp();
    await big.createUser('leaver');
    bigCookie = await big.login('leaver');
  });
  afterAll(() => big.close());

  test('when the client drops the connection while the file is being written, then no file, temporary file or record remains', async () => {
    const before = await snapshot(big);
    // The socket is destroyed on purpose: its answer is never awaited.
    const { request: req } = openUpload(big.url, bigCookie, { filename: 'abandoned.bin', size: 50 * 1024 * 1024 });
    // More than one 8 MiB part, so that on S3 too the upload is under way (a multipart upload).
    req.write(Buffer.alloc(9 * 1024 * 1024, 1));

    // The upload really is under way: its temporary file or multipart upload exists.
    expect(await poll(async () => (await big.incompleteFiles()).length > 0)).toBe(true);
    req.destroy();

    expect(await poll(async () => (await big.incompleteFiles()).length === 0, 15_000)).toBe(true);
    await before.expectUnchanged();
    // And the service goes on: the same user can upload right after.
    const res = await fetch(`${big.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: bigCookie },
      body: fileForm('ok', 'ok.txt'),
    });
    expect(res.status).toBe(201);
  });
});

/** A POST of these pieces, one after another, for shapes fetch will not send (chunked, no content type). */
async function postPieces(
  baseUrl: string,
  options: { headers: Record<string, string>; chunks: Buffer[] },
): Promise<{ status: number; text: string }> {
  const { request, answer } = openRequest(`${baseUrl}/api/v1/files`, { method: 'POST', headers: options.headers });
  for (const chunk of options.chunks) request.write(chunk);
  request.end();
  return answer;
}
