// Hostile multipart bodies, names and ids: limits hold, odd input is a 4xx and
// never a 500, nothing is stored by a refused request, and the server keeps answering.
//
// What multipart.ts does (read, then asserted here): busboy with limits parts 30, fields 20,
// files 5, fieldSize 64 KiB, headerPairs 50. busboy skips the parts past a limit; multipart.ts
// refuses the whole upload then (400 "Too many form fields" / "Too many file parts" before the
// file), since a share setting or the file could be among them. The first named file is taken;
// file parts after it are read and dropped (ADR 0026). A part header over 16 KiB is malformed (400); request headers over Node's
// 16 KiB are answered 431 by Node itself.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import {
  expectRowsMatchDisk,
  expectServerAnswers,
  expectUnchanged,
  fieldPart,
  filePart,
  rawMultipart,
  snapshot,
  type RawPart,
} from '../helpers/hardening-http';
import { openRequest, rawRequest, type RawResponse } from '../helpers/raw-http';

const BOUNDARY = 'hardening-limits-boundary';
const SAFE_STORED_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)?$/;

/** Requests to `app` with a user's cookie, and what they leave behind in its storage. */
function sender(app: TestApp, cookie: string) {
  function post(
    body: Buffer | string,
    contentType = `multipart/form-data; boundary=${BOUNDARY}`,
    extraHeaders: Record<string, string> = {},
    path = '/api/v1/files',
  ) {
    const headers: Record<string, string> = { cookie, ...extraHeaders };
    if (contentType) headers['content-type'] = contentType;
    return rawRequest(app.url, { method: 'POST', path, headers, body });
  }

  /** The request was refused with `status`, nothing was stored, and the server answers. */
  async function expectRefused(send: () => Promise<RawResponse>, status: number | number[], error?: string | RegExp) {
    const before = await snapshot(app);
    const res = await send();
    if (Array.isArray(status)) expect(status).toContain(res.status);
    else expect(res.status).toBe(status);
    if (error !== undefined) expect(json(res).error).toMatch(error);
    await expectUnchanged(app, before);
    await expectServerAnswers(app.url);
    return res;
  }

  /** The request stored exactly one file (201), whose row and content match. */
  async function expectStoredOne(send: () => Promise<RawResponse>) {
    const before = await snapshot(app);
    const res = await send();
    expect(res.status, res.text).toBe(201);
    const { file } = json(res);
    expect(file!.storedName).toMatch(SAFE_STORED_NAME);
    const after = await snapshot(app);
    expect(after.rows).toHaveLength(before.rows.length + 1);
    expect(after.stored).toEqual([...before.stored, file!.storedName].sort());
    await expectRowsMatchDisk(app);
    await expectServerAnswers(app.url);
    return file!;
  }

  /** The share page and the raw link of a stored file answer normally whatever its name. */
  async function expectServable(id: string) {
    const page = await fetch(`${app.url}/f/${id}`);
    expect(page.status).toBe(200);
    await page.body?.cancel();
    const raw = await fetch(`${app.url}/f/${id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-disposition')).toMatch(/^(attachment|inline); filename="[\x20-\x7e]*"/);
    await raw.body?.cancel();
  }

  return { app, cookie, post, expectRefused, expectStoredOne, expectServable };
}
type Sender = ReturnType<typeof sender>;

const test = base.extend('sender', { scope: 'file' }, ({ app, alice }) => sender(app, alice.cookie));

/** `/api/v1/files` is answered ahead of Express (upload-fast-path.ts); with a trailing slash, by the Express route. */
const BOTH_ROUTES = [
  ['the fast path', '/api/v1/files'],
  ['the Express route', '/api/v1/files/'],
] as const;

function json(res: RawResponse): {
  error?: string;
  file?: { id: string; originalName: string; storedName: string; size: number };
} {
  return JSON.parse(res.text);
}

const manyFields = (count: number): RawPart[] =>
  Array.from({ length: count }, (_, i) => fieldPart(`field${i}`, `value ${i}`));

const TOO_MANY_FIELDS = 'Too many form fields: at most 20 besides the file';

describe('many parts', () => {
  test('when a body carries 1,000 small fields and no file, then 400 "Too many form fields" in under a second', async ({
    sender: { post, expectRefused },
  }) => {
    const started = performance.now();
    await expectRefused(() => post(rawMultipart(BOUNDARY, manyFields(1000))), 400, TOO_MANY_FIELDS);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test('when a file comes first and 1,000 fields follow, then 400 "Too many form fields", quickly, and the file is not kept', async ({
    sender: { post, expectRefused },
  }) => {
    const started = performance.now();
    await expectRefused(
      () => post(rawMultipart(BOUNDARY, [filePart('first.txt', 'the file'), ...manyFields(1000)])),
      400,
      TOO_MANY_FIELDS,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test('when 20 fields come before the file, then 201: the limit itself is allowed', async ({
    sender: { post, expectStoredOne },
  }) => {
    const file = await expectStoredOne(() =>
      post(rawMultipart(BOUNDARY, [...manyFields(19), fieldPart('maxDownloads', '3'), filePart('twenty.txt', 'ok')])),
    );
    expect(file).toMatchObject({ originalName: 'twenty.txt', maxDownloads: 3 });
  });

  test.for(BOTH_ROUTES)(
    'when 31 fields come before the file (the file past the parts limit), then %s answers 400 "Too many form fields", not "No file uploaded", and keeps nothing',
    async ([_route, path], { sender: { post, expectRefused } }) => {
      await expectRefused(
        () => post(rawMultipart(BOUNDARY, [...manyFields(31), filePart('late.txt')]), undefined, {}, path),
        400,
        TOO_MANY_FIELDS,
      );
    },
  );

  test.for(BOTH_ROUTES)(
    'when the password setting is the 21st field (past the fields limit), then %s answers 400 rather than store the file without its password',
    async ([_route, path], { sender: { post, expectRefused } }) => {
      await expectRefused(
        () =>
          post(
            rawMultipart(BOUNDARY, [...manyFields(20), fieldPart('password', 'pony pony'), filePart('secret.txt')]),
            undefined,
            {},
            path,
          ),
        400,
        TOO_MANY_FIELDS,
      );
    },
  );

  // What a browser sends for a file input left empty: no name, no bytes, application/octet-stream.
  const emptyInput = (): RawPart => ({
    headers: ['Content-Disposition: form-data; name="other"; filename=""', 'Content-Type: application/octet-stream'],
    content: '',
  });

  test.for(BOTH_ROUTES)(
    'when a request carries two files, plainly or past the files limit, then %s stores the first alone (ADR 0026: the first part that carries a file is the upload)',
    async ([_route, path], { sender: { post, expectStoredOne, app } }) => {
      const bodies: RawPart[][] = [
        [filePart('one.txt', 'one'), filePart('two.txt', 'two')],
        // The sixth file part, after four empty file inputs: past busboy's files limit, which only
        // matters before the file.
        [
          filePart('one.txt', 'one'),
          emptyInput(),
          emptyInput(),
          emptyInput(),
          emptyInput(),
          filePart('two.txt', 'two'),
        ],
      ];
      for (const parts of bodies) {
        const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, parts), undefined, {}, path));
        expect(file).toMatchObject({ originalName: 'one.txt', size: 3 });
        expect(await (await fetch(`${app.url}/f/${file.id}/raw`)).text()).toBe('one');
      }
    },
  );

  test.for(BOTH_ROUTES)(
    'when a second file hides past the fields limit, then %s answers 400 "Too many form fields" and keeps neither',
    async ([_route, path], { sender: { post, expectRefused } }) => {
      await expectRefused(
        () =>
          post(
            rawMultipart(BOUNDARY, [filePart('one.txt', 'one'), ...manyFields(30), filePart('two.txt', 'two')]),
            undefined,
            {},
            path,
          ),
        400,
        TOO_MANY_FIELDS,
      );
    },
  );

  test.for(BOTH_ROUTES)(
    'when five empty file inputs come before the file (past the files limit), then %s answers 400 "Too many file parts", not "No file uploaded"',
    async ([_route, path], { sender: { post, expectRefused } }) => {
      const parts = [
        emptyInput(),
        emptyInput(),
        emptyInput(),
        emptyInput(),
        emptyInput(),
        filePart('late.txt', 'late'),
      ];
      await expectRefused(
        () => post(rawMultipart(BOUNDARY, parts), undefined, {}, path),
        400,
        'Too many file parts: at most 5 before the file',
      );
    },
  );

  test('when one request carries 10 files, then 201 with the first, and only the first is stored', async ({
    sender: { post, expectStoredOne, app },
  }) => {
    const parts = Array.from({ length: 10 }, (_, i) => filePart(`file-${i}.txt`, `content of file ${i}`));
    const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, parts)));
    expect(file).toMatchObject({ originalName: 'file-0.txt', size: 'content of file 0'.length });
    expect(await (await fetch(`${app.url}/f/${file.id}/raw`)).text()).toBe('content of file 0');
  });
});

describe('big headers and fields', () => {
  test('when the request headers are huge (64 KiB), then Node answers 431 and nothing is stored', async ({
    sender: { post, expectRefused },
  }) => {
    const headers = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`x-filler-${i}`, 'x'.repeat(1024)]));
    await expectRefused(() => post(rawMultipart(BOUNDARY, [filePart('a.txt')]), undefined, headers), 431);
  });

  test('when a part header block is huge (100 KiB), then 400 malformed and nothing is stored', async ({
    sender: { post, expectRefused },
  }) => {
    const part: RawPart = {
      headers: [...filePart('a.txt').headers, `X-Filler: ${'y'.repeat(100 * 1024)}`],
      content: 'x',
    };
    await expectRefused(() => post(rawMultipart(BOUNDARY, [part])), 400, /malformed/i);
  });

  test('when a part has thousands of header lines, then 400 malformed and nothing is stored', async ({
    sender: { post, expectRefused },
  }) => {
    const part: RawPart = {
      headers: [...filePart('a.txt').headers, ...Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`)],
      content: 'x',
    };
    await expectRefused(() => post(rawMultipart(BOUNDARY, [part])), 400, /malformed/i);
  });

  test('when a 1 MB field comes before the file, then the field is ignored and the file stored (201)', async ({
    sender: { post, expectStoredOne },
  }) => {
    const file = await expectStoredOne(() =>
      post(
        rawMultipart(BOUNDARY, [fieldPart('big', Buffer.alloc(1024 * 1024, 0x7a)), filePart('after-big.txt', 'ok')]),
      ),
    );
    expect(file.originalName).toBe('after-big.txt');
    expect(file.size).toBe(2);
  });

  test('when a 1 MB field is the only part, then 400 "No file uploaded"', async ({
    sender: { post, expectRefused },
  }) => {
    await expectRefused(
      () => post(rawMultipart(BOUNDARY, [fieldPart('big', Buffer.alloc(1024 * 1024, 0x7a))])),
      400,
      'No file uploaded',
    );
  });
});

describe('malformed bodies', () => {
  test('when a malformed part header is followed by a file part in the same chunk, then 400 at once — the file busboy still emits after its error is ignored, not waited for', async ({
    sender: { expectRefused, app, cookie },
  }) => {
    const body = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disdata; name="note"\r\n\r\nhello\r\n`),
      rawMultipart(BOUNDARY, [filePart('after-the-error.txt', 'never stored')]),
    ]);
    const started = performance.now();
    await expectRefused(
      () =>
        rawRequest(app.url, {
          method: 'POST',
          path: '/api/v1/files',
          headers: { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          body,
          timeoutMs: 5_000,
        }),
      400,
      'Malformed multipart body',
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('when a file part follows the closing boundary in the same chunk, then 400 at once — busboy would wait for that file forever', async ({
    sender: { expectRefused, app, cookie },
  }) => {
    const body = Buffer.concat([
      Buffer.from(`--${BOUNDARY}--\r\n`),
      // busboy swallows the first part after the end; the second is parsed, and never ends.
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="epilogue.txt"\r\n\r\nno end in sight`,
      ),
    ]);
    const started = performance.now();
    await expectRefused(
      () =>
        rawRequest(app.url, {
          method: 'POST',
          path: '/api/v1/files',
          headers: { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
          body,
          timeoutMs: 5_000,
        }),
      400,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('when a complete file is followed by the closing boundary and an epilogue that looks like another file, then 201 with the first file only', async ({
    sender: { expectStoredOne, app, cookie },
  }) => {
    const body = Buffer.concat([
      rawMultipart(BOUNDARY, [filePart('real.txt', 'real content')]),
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="epilogue.txt"\r\n\r\nno end in sight`,
      ),
    ]);
    const file = await expectStoredOne(() =>
      rawRequest(app.url, {
        method: 'POST',
        path: '/api/v1/files',
        headers: { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body,
        timeoutMs: 5_000,
      }),
    );
    expect(file.originalName).toBe('real.txt');
    expect(await (await fetch(`${app.url}/f/${file.id}/raw`)).text()).toBe('real content');
  });

  test.for(BOTH_ROUTES)(
    'when a complete file part is followed by a body that breaks before its closing boundary, then %s answers 400 "Malformed multipart body" and keeps nothing',
    async ([_route, path], { sender: { post, expectRefused } }) => {
      const file = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="whole.txt"\r\nContent-Type: text/plain\r\n\r\nwhole content`;
      const endings = [
        // A delimiter, and then nothing: no "--" to close the body.
        `\r\n--${BOUNDARY}`,
        `\r\n--${BOUNDARY}\r\n`,
        // A second part whose header line has no colon.
        `\r\n--${BOUNDARY}\r\nthis is not a header\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
        // A second part that never ends.
        `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nnever closed`,
      ];
      for (const ending of endings) {
        await expectRefused(
          () => post(Buffer.from(file + ending), undefined, {}, path),
          400,
          'Malformed multipart body',
        );
      }
    },
  );

  test('when a complete file part is followed by a body still on its way, then nothing is stored until it ends, and a broken end leaves nothing', async ({
    sender: { app, cookie },
  }) => {
    const before = await snapshot(app);
    const { request, answer } = openRequest(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    // The whole file part, and the start of another part: the file's content has all arrived.
    request.write(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="held.txt"\r\n\r\nheld content\r\n--${BOUNDARY}\r\n`,
    );
    await sleep(300);
    expect((await snapshot(app)).stored).toEqual(before.stored);

    request.end('not a header line\r\n\r\n');
    const res = await answer;
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: 'Malformed multipart body' });
    await expectUnchanged(app, before);
  });

  test('when the body stops before the closing boundary (the request itself complete), then 400 and nothing stored', async ({
    sender: { post, expectRefused },
  }) => {
    const body = rawMultipart(BOUNDARY, [filePart('cut.txt', 'cut short')]);
    await expectRefused(
      () => post(body.subarray(0, body.length - `--${BOUNDARY}--\r\n`.length - 2)),
      400,
      /malformed/i,
    );
  });
});

describe('odd content types', () => {
  const body = () => rawMultipart(BOUNDARY, [filePart('a.txt')]);
  test.for([
    ['multipart/form-data without a boundary', 'multipart/form-data'],
    ['multipart/form-data with an empty boundary', 'multipart/form-data; boundary='],
    ['multipart/mixed', `multipart/mixed; boundary=${BOUNDARY}`],
    ['a boundary of 71 characters (RFC 2046 allows 70)', `multipart/form-data; boundary=${'b'.repeat(71)}`],
    ['text/plain', 'text/plain'],
    ['application/json', 'application/json'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
    ['garbage', '%%%;;;==='],
    ['no Content-Type at all', ''],
  ])(
    'when the Content-Type is %s, then 400 and nothing is stored',
    async ([_label, contentType], { sender: { post, expectRefused } }) => {
      const send = () => {
        // The 71-character case sends a body that really uses that boundary: only its length is wrong.
        const boundary = /boundary=(b{71})$/.exec(contentType)?.[1];
        return post(boundary ? rawMultipart(boundary, [filePart('a.txt')]) : body(), contentType);
      };
      await expectRefused(send, 400, /./);
    },
  );

  test('when the boundary is exactly 70 characters, then the upload is accepted (201)', async ({
    sender: { post, expectStoredOne },
  }) => {
    const boundary = 'c'.repeat(70);
    await expectStoredOne(() =>
      post(rawMultipart(boundary, [filePart('seventy.txt')]), `multipart/form-data; boundary=${boundary}`),
    );
  });

  test('when the files sit in a nested multipart/mixed part (old RFC 2388 style), then 400 "No file uploaded"', async ({
    sender: { post, expectRefused },
  }) => {
    const inner = rawMultipart('inner-boundary', [filePart('nested.txt', 'nested content')]);
    const outer: RawPart = {
      headers: [
        'Content-Disposition: form-data; name="files"',
        'Content-Type: multipart/mixed; boundary=inner-boundary',
      ],
      content: inner,
    };
    await expectRefused(() => post(rawMultipart(BOUNDARY, [outer])), 400, 'No file uploaded');
  });
});

describe('odd file names', () => {
  test('when the filename is 10,000 characters long, then 201 with the name capped at 255 characters, its extension kept', async ({
    sender: { post, expectStoredOne, expectServable },
  }) => {
    const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, [filePart(`${'n'.repeat(10_000)}.txt`)])));
    expect(file.originalName).toBe(`${'n'.repeat(251)}.txt`);
    // The stored name follows the capped name, which kept its extension.
    expect(file.storedName).toBe(`${file.id}.txt`);
    await expectServable(file.id);
  });

  test('when a filename* decodes to 2,000 characters, then 201 with the name capped at 255 characters, its extension kept', async ({
    sender: { post, expectStoredOne, expectServable },
  }) => {
    const part: RawPart = {
      headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''${'%C3%A9'.repeat(2_000)}.pdf`],
      content: 'x',
    };
    const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, [part])));
    expect(file.originalName).toBe(`${'é'.repeat(251)}.pdf`);
    await expectServable(file.id);
  });

  test('when a filename* of 10,000 encoded characters makes the part header pass 16 KiB, then 400 malformed', async ({
    sender: { post, expectRefused },
  }) => {
    const part: RawPart = {
      headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''${'%C3%A9'.repeat(10_000)}.pdf`],
      content: 'x',
    };
    await expectRefused(() => post(rawMultipart(BOUNDARY, [part])), 400, /malformed/i);
  });

  test('when the filename carries a raw NUL byte, then busboy finds the part header malformed: 400, nothing stored', async ({
    sender: { post, expectRefused },
  }) => {
    await expectRefused(() => post(rawMultipart(BOUNDARY, [filePart('nul\u0000byte.txt')])), 400, /malformed/i);
  });

  test('when the filename* carries %00, then 201 with the NUL bytes removed', async ({
    sender: { post, expectStoredOne, expectServable },
  }) => {
    const part: RawPart = {
      headers: ['Content-Disposition: form-data; name="file"; filename*=UTF-8\'\'evil%00.php%00.txt'],
      content: 'x',
    };
    const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, [part])));
    expect(file.originalName).toBe('evil.php.txt');
    expect(file.storedName).toBe(`${file.id}.txt`);
    await expectServable(file.id);
  });

  test.for(['.', '..', '...', '/', '../../../etc/passwd', '\\..\\..\\boot.ini'])(
    'when the filename is %j, then 201, stored under its id only, never outside UPLOAD_DIR',
    async (name, { sender: { post, expectStoredOne, expectServable } }) => {
      const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, [filePart(name)])));
      expect(file.originalName).toBe(name);
      expect(file.storedName).toMatch(new RegExp(`^${file.id}(\\.[A-Za-z0-9]+)?$`));
      await expectServable(file.id);
    },
  );

  test('when the filename* carries CR LF and a quote, then 201 and the download header stays one clean line', async ({
    sender: { post, expectStoredOne, app },
  }) => {
    const part: RawPart = {
      headers: ['Content-Disposition: form-data; name="file"; filename*=UTF-8\'\'a%0D%0ASet-Cookie%3A%20x%3D1%22.txt'],
      content: 'x',
    };
    const file = await expectStoredOne(() => post(rawMultipart(BOUNDARY, [part])));
    const raw = await fetch(`${app.url}/f/${file.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.getSetCookie()).toEqual([]);
    expect(raw.headers.get('content-disposition')).not.toMatch(/[\r\n]/);
    await raw.body?.cancel();
  });
});

describe('odd ids on every route', () => {
  const ids: Array<[string, string]> = [
    ['%00', '%00'],
    ['..%2F..%2Fetc%2Fpasswd', '..%2F..%2Fetc%2Fpasswd'],
    ['an id of 5,000 characters', 'A'.repeat(5_000)],
    ['a broken %-escape (%E0%A4%A)', '%E0%A4%A'],
    ['%2e%2e/x', '%2e%2e%2fx'],
    ['a percent-encoded newline', 'abc%0D%0Adef'],
  ];
  const routes: Array<[string, (sender: Sender, id: string) => Promise<RawResponse>]> = [
    ['GET /f/<id>/raw', ({ app }, id) => rawRequest(app.url, { path: `/f/${id}/raw` })],
    ['HEAD /f/<id>/raw', ({ app }, id) => rawRequest(app.url, { method: 'HEAD', path: `/f/${id}/raw` })],
    ['GET /f/<id>', ({ app }, id) => rawRequest(app.url, { path: `/f/${id}` })],
    [
      'DELETE /api/v1/files/<id>',
      ({ app, cookie }, id) =>
        rawRequest(app.url, { method: 'DELETE', path: `/api/v1/files/${id}`, headers: { cookie } }),
    ],
    [
      'POST /files/<id>/delete',
      ({ app, cookie }, id) =>
        rawRequest(app.url, {
          method: 'POST',
          path: `/files/${id}/delete`,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
        }),
    ],
    [
      'POST /trpc/files.delete',
      ({ app, cookie }, id) =>
        rawRequest(app.url, {
          method: 'POST',
          path: '/trpc/files.delete',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ id: decodeURIComponentSafe(id) }),
        }),
    ],
  ];
  const cases = ids.flatMap(([label, id]) => routes.map(([route, send]) => ({ label, id, route, send })));
  test.for(cases)('when $route gets $label, then a 4xx, never a 500', async ({ id, send }, { sender }) => {
    const res = await sender.expectRefused(() => send(sender, id), [400, 404]);
    if (res.headers['content-type']?.startsWith('application/json') && res.text)
      expect(res.text).not.toMatch(/stack|at .*\.ts:\d+/);
  });

  test('when /f/%2e%2e is asked for, then URL normalisation makes it "/" (the home page), never a file nor a 500', async ({
    sender: { expectRefused, app },
  }) => {
    const res = await rawRequest(app.url, { path: '/f/%2e%2e' });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<title>File sharing<\/title>/);
    const raw = await expectRefused(() => rawRequest(app.url, { path: '/f/%2e%2e/raw' }), 404);
    expect(raw.text).not.toMatch(/root:/);
  });

  test('when the URL is 100 KB long, then a 4xx (Node: 431) and the server still answers', async ({
    sender: { expectRefused, app },
  }) => {
    const res = await expectRefused(
      () => rawRequest(app.url, { path: `/f/${'x'.repeat(100 * 1024)}/raw` }),
      [414, 431],
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
  });
});

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
