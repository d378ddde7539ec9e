// Uploading, listing and deleting files over /api/v1/files (docs/api.md).
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, registeredUser, test, type TestUser } from '../helpers/fixtures';
import { binaryContent, BOUNDARY, multipartBody, MULTIPART_TYPE, postFiles } from '../helpers/multipart';

async function upload(user: TestUser, form: FormData) {
  return user.fetch('/api/v1/files', { method: 'POST', body: form });
}

async function uploadOk(user: TestUser, content: string | Uint8Array, name: string, type?: string) {
  const res = await upload(user, fileForm(content, name, type));
  expect(res.status).toBe(201);
  return (await res.json()) as { file: Record<string, unknown> & { id: string; storedName: string }; url: string };
}

function list(user: TestUser) {
  return user.fetch('/api/v1/files');
}

function remove(user: TestUser, id: string) {
  return user.fetch(`/api/v1/files/${id}`, { method: 'DELETE' });
}

/** The bytes the service stored for a file (in UPLOAD_DIR or the bucket), as text. */
const storedText = async (app: TestApp, storedName: string) => (await app.readStored(storedName))?.toString('utf8');

describe('POST /api/v1/files', () => {
  test('when a logged-in user uploads a file, then it answers 201 with the file and its share url, and the bytes are stored', async ({
    app,
    alice,
  }) => {
    const res = await upload(alice, fileForm('hello world', 'greeting.txt', 'text/plain'));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.file).toMatchObject({ originalName: 'greeting.txt', mimeType: 'text/plain', size: 11 });
    expect(body.file.id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(body.file.storedName).toBe(`${body.file.id}.txt`);
    expect(body.url).toBe(`${app.url}/f/${body.file.id}`);
    expect(new Date(body.file.createdAt).toISOString()).toBe(body.file.createdAt);
    expect(await storedText(app, body.file.storedName)).toBe('hello world');
    const [row] = await app.rows('select stored_name, user_id, size from files where id = ?', [body.file.id]);
    expect(row).toEqual({ stored_name: body.file.storedName, user_id: body.file.userId, size: 11 });
  });

  test('when a file is uploaded, then the answer is exactly {file:{id,userId,originalName,mimeType,size,storedName,createdAt} and the share settings,url} with the owner as userId', async ({
    alice,
  }) => {
    const before = Date.now();
    const res = await upload(alice, fileForm('abc', 'shape.txt', 'text/plain'));

    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['file', 'url']);
    expect(Object.keys(body.file).sort()).toEqual([
      'createdAt',
      'downloads',
      'expiresAt',
      'hasPassword',
      'id',
      'maxDownloads',
      'mimeType',
      'originalName',
      'size',
      'storedName',
      'userId',
      'views',
    ]);
    expect(body.file).toMatchObject({
      expiresAt: null,
      maxDownloads: null,
      downloads: 0,
      views: 0,
      hasPassword: false,
    });
    expect(body.file.userId).toBe(alice.id);
    expect(typeof body.file.size).toBe('number');
    const created = Date.parse(body.file.createdAt);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });

  test('when binary content is uploaded, then the stored bytes and the raw download are byte-exact', async ({
    app,
    alice,
  }) => {
    const content = binaryContent(64);
    const { file } = await uploadOk(alice, content, 'blob.bin', 'application/octet-stream');

    expect(file.size).toBe(content.length);
    expect(Buffer.compare((await app.readStored(file.storedName))!, Buffer.from(content))).toBe(0);
    const raw = await fetch(`${app.url}/f/${file.id}/raw`);
    expect(raw.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await raw.arrayBuffer()), Buffer.from(content))).toBe(0);
  });

  test('when many files are uploaded, then every id is distinct, URL-safe and carries at least 120 bits (20+ base64url characters)', async ({
    bob,
  }) => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await uploadOk(bob, `n${i}`, `n${i}.txt`)).file.id);

    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
  });

  test.for([
    ['a.txt', '.txt'],
    ['archive.tar.gz', '.gz'],
    ['noext', ''],
    ['a.PNG', '.PNG'],
    ['photo.JPEG', '.JPEG'],
    ['evil.p/hp', ''],
    ['x.ph p', ''],
    ['..', ''],
    ['a.', ''],
    ['a.jpé', ''],
    ['../../etc/passwd', ''],
    ['..\\..\\win.ini', '.ini'],
    ['report.pdf.exe', '.exe'],
    ['.bashrc', ''],
    ['.hidden.txt', '.txt'],
  ])(
    'when the original name is %j, then storedName is the id followed by %j and the name is kept as sent',
    async ([name, extension], { app, alice }) => {
      const res = await upload(alice, fileForm('content', name));
      expect(res.status).toBe(201);
      const { file } = await res.json();

      expect(file.storedName).toBe(file.id + extension);
      expect(file.originalName).toBe(name);
      expect(await storedText(app, file.storedName)).toBe('content');
      expect(await app.storedFiles()).toContain(file.storedName);
      const [row] = await app.rows('select original_name, stored_name from files where id = ?', [file.id]);
      expect(row).toEqual({ original_name: name, stored_name: file.storedName });
    },
  );

  test('when files are uploaded with any names, then nothing is ever written outside the upload directory', async ({
    app,
    alice,
  }) => {
    const parent = path.dirname(app.config.uploadDir);
    const before = fs.readdirSync(parent).sort();
    for (const name of ['../escape.txt', '../../escape2.txt', '/tmp/abs.txt']) await uploadOk(alice, 'x', name);

    expect(fs.readdirSync(parent).sort()).toEqual(before);
    for (const name of await app.storedFiles()) expect(name).toMatch(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)?$/);
  });

  test.for(['résumé 📄.pdf', '报告 2024 年.docx', 'Ünïcödé naïve café.txt', 'ファイル'])(
    'when the original name is the UTF-8 name %j, then it is stored and listed intact',
    async (name, { app, alice }) => {
      // Sent as raw UTF-8 in the part header, exactly as browsers do.
      const body = multipartBody([{ name: 'file', filename: name, contentType: 'text/plain', content: 'utf8' }]);
      const res = await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE);
      expect(res.status).toBe(201);
      const { file } = await res.json();

      expect(file.originalName).toBe(name);
      const [row] = await app.rows('select original_name from files where id = ?', [file.id]);
      expect(row.original_name).toBe(name);
      const listed = (await (await list(alice)).json()).files.find((f: { id: string }) => f.id === file.id);
      expect(listed.originalName).toBe(name);
    },
  );

  test("when the name comes RFC 5987-encoded (filename*=UTF-8''…), then it is decoded", async ({ app, alice }) => {
    const name = 'naïve résumé.pdf';
    const body =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(name)}\r\n` +
      'Content-Type: application/pdf\r\n\r\n%PDF\r\n' +
      `--${BOUNDARY}--\r\n`;

    const res = await postFiles(app.url, alice.cookie, body, MULTIPART_TYPE);

    expect(res.status).toBe(201);
    const { file } = await res.json();
    expect(file.originalName).toBe(name);
    expect(file.storedName).toBe(`${file.id}.pdf`);
  });

  test('when the body has a text field, then two files, then 201 with the first file, and only its bytes are stored (ADR 0026: the first part that carries a file is the upload)', async ({
    app,
    alice,
  }) => {
    const form = new FormData();
    form.append('note', 'not a file');
    form.append('file', new Blob(['first']), 'first.txt');
    form.append('file', new Blob(['second']), 'second.txt');
    const filesBefore = await app.storedFiles();
    const [{ n: rowsBefore }] = await app.rows('select count(*) as n from files');

    const res = await upload(alice, form);

    expect(res.status).toBe(201);
    const { file, url } = await res.json();
    expect(file).toMatchObject({ originalName: 'first.txt', size: 5 });
    expect(url).toBe(`${app.url}/f/${file.id}`);
    expect((await app.storedFiles()).sort()).toEqual([...filesBefore, file.storedName].sort());
    expect((await app.readStored(file.storedName))?.toString()).toBe('first');
    expect(await app.incompleteFiles()).toEqual([]);
    const [{ n: rowsAfter }] = await app.rows('select count(*) as n from files');
    expect(Number(rowsAfter)).toBe(Number(rowsBefore) + 1);
  });

  test('when a file is followed by an empty file input (a browser form left empty), then 201 with that file', async ({
    alice,
  }) => {
    const form = new FormData();
    form.append('file', new Blob(['only one']), 'one.txt');
    form.append('file', new Blob([]), '');

    const res = await upload(alice, form);

    expect(res.status).toBe(201);
    expect((await res.json()).file.originalName).toBe('one.txt');
  });

  test('when the body is sent with Content-Encoding: gzip, then 400 naming the encoding and nothing is stored', async ({
    app,
    alice,
  }) => {
    const filesBefore = await app.storedFiles();
    const res = await fetch(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: alice.cookie, 'content-encoding': 'gzip', 'content-type': 'multipart/form-data; boundary=x' },
      body: gzipSync(
        Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--x--\r\n'),
      ),
    });

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Content-Encoding "gzip" is not supported: send the file uncompressed' });
    expect(await app.storedFiles()).toEqual(filesBefore);
  });

  test('when the file part is named something other than "file", then it is still the uploaded file', async ({
    alice,
  }) => {
    const res = await upload(alice, fileForm('other field', 'other.txt', 'text/plain', 'attachment'));

    expect(res.status).toBe(201);
    expect((await res.json()).file.originalName).toBe('other.txt');
  });

  test('when an empty (0-byte) file with a name is uploaded, then it is stored with size 0', async ({ app, alice }) => {
    const { file } = await uploadOk(alice, '', 'empty.txt', 'text/plain');

    expect(file.size).toBe(0);
    expect(await app.readStored(file.storedName)).toEqual(Buffer.alloc(0));
  });

  test('when the part declares a content type that its bytes agree with, then mimeType is that type', async ({
    alice,
  }) => {
    const { file } = await uploadOk(alice, sampleOf('image/png'), 'pic.png', 'image/png');

    expect(file.mimeType).toBe('image/png');
  });

  test('when BASE_URL has a trailing slash, then the share url is BASE_URL without it plus /f/<id>', async () => {
    const other = await startApp({ BASE_URL: 'https://share.example.com/' });
    try {
      await other.createUser('carol');
      const cookie = await other.login('carol');
      const res = await fetch(`${other.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie },
        body: fileForm('x', 'x.txt'),
      });

      expect(res.status).toBe(201);
      const { file, url } = await res.json();
      expect(url).toBe(`https://share.example.com/f/${file.id}`);
    } finally {
      await other.close();
    }
  });
});

describe('GET /api/v1/files', () => {
  test('when two users have files, then each sees only their own, newest first, in the File shape', async ({ app }) => {
    const gina = await registeredUser(app, 'gina');
    const hank = await registeredUser(app, 'hank');
    const uploaded = [];
    for (const name of ['one.txt', 'two.txt', 'three.txt']) {
      uploaded.push((await uploadOk(gina, name, name)).file);
      await new Promise((resolve) => setTimeout(resolve, 5)); // distinct createdAt
    }
    const hanks = (await uploadOk(hank, 'h', 'hank.txt')).file;

    const ginaRes = await list(gina);
    expect(ginaRes.status).toBe(200);
    // A listed file also says whether a guest sent it through a file request (none did).
    const listed = (file: Record<string, unknown>) => ({ ...file, request: null, receivedFrom: null });
    expect(await ginaRes.json()).toEqual({ files: [...uploaded].reverse().map(listed) });
    expect(await (await list(hank)).json()).toEqual({ files: [listed(hanks)] });
  });

  test('when a user has no files, then the list is empty', async ({ app }) => {
    const ivy = await registeredUser(app, 'ivy');

    const res = await list(ivy);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ files: [] });
  });
});

describe('DELETE /api/v1/files/<id>', () => {
  test('when the id is unknown, then it answers 404 {"error":"File not found"}', async ({ alice }) => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'not..a..file', 'x'.repeat(100)]) {
      const res = await remove(alice, id);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'File not found' });
    }
  });

  test('when another user deletes the file, then it answers 403 {"error":"Forbidden"} and the file, its record and the owner\'s listing stay', async ({
    app,
    alice,
    bob,
  }) => {
    const { file } = await uploadOk(alice, 'keep me', 'keep.txt');

    const res = await remove(bob, file.id);

    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'Forbidden' });
    expect(await storedText(app, file.storedName)).toBe('keep me');
    expect(await app.rows('select id from files where id = ?', [file.id])).toHaveLength(1);
    const listed = (await (await list(alice)).json()).files.map((f: { id: string }) => f.id);
    expect(listed).toContain(file.id);
  });

  test('when the owner deletes the file, then it answers 200 {ok:true} and the record, the content and the share link are gone', async ({
    app,
    alice,
  }) => {
    const { file } = await uploadOk(alice, 'bye', 'bye.txt');
    expect(await app.readStored(file.storedName)).not.toBeNull();

    const res = await remove(alice, file.id);

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(await app.readStored(file.storedName)).toBeNull();
    expect(await app.rows('select id from files where id = ?', [file.id])).toEqual([]);
    const listed = (await (await list(alice)).json()).files.map((f: { id: string }) => f.id);
    expect(listed).not.toContain(file.id);
    expect((await fetch(`${app.url}/f/${file.id}/raw`)).status).toBe(404);
  });

  test('when the same file is deleted twice, then the second answer is 404', async ({ alice }) => {
    const { file } = await uploadOk(alice, 'twice', 'twice.txt');

    expect((await remove(alice, file.id)).status).toBe(200);
    const again = await remove(alice, file.id);

    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 'File not found' });
  });
});
