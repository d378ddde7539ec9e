// Resumable uploads (tus 1.0) at /api/v1/uploads (ADR 0019), on both backends: an upload is
// created, sent in pieces, broken off and resumed from where the server says it stands, and
// becomes one file exactly like a multipart upload. Each upload is its creator's alone; sizes
// and quotas are refused at creation; partial uploads are never files and expire after a day.
import { randomBytes } from 'node:crypto';
import { Upload } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, TestClock, type TestApp } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { OFFSET_OCTET_STREAM, offsetOnceSettled, sha256, TUS, tusClient, type TusClient } from '../helpers/tus';

const MiB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 40 * MiB;
let app: TestApp;
let clock: TestClock;

beforeAll(async () => {
  clock = new TestClock();
  app = await startApp({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) }, { clock, expirySweepEveryMs: 100 });
});
afterAll(() => app.close());

let users = 0;
async function newUser(): Promise<{ name: string; cookie: string; tus: TusClient }> {
  const name = `tus${++users}`;
  await app.createUser(name);
  const cookie = await app.login(name);
  return { name, cookie, tus: tusClient(app.url, cookie) };
}

async function created(client: TusClient, length: number, metadata?: Record<string, string>): Promise<string> {
  const res = await client.create(length, metadata);
  expect(res.status).toBe(201);
  const location = res.headers.get('location');
  // Relative: the client goes on at the address it began at (tus 1.0 allows it).
  expect(location).toMatch(/^\/api\/v1\/uploads\/[A-Za-z0-9_-]{22}$/);
  return new URL(location!, app.url).href;
}

async function download(id: string): Promise<Buffer> {
  const res = await fetch(`${app.url}/f/${id}/raw`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('a resumable upload', () => {
  it('when it is sent in three PATCHes, then each answers the new offset and the last one answers the file, stored whole', async () => {
    const { cookie, tus } = await newUser();
    const before = await app.partialContent();
    const content = randomBytes(3 * MiB + 123);
    sampleOf('video/mp4').copy(content);
    const location = await created(tus, content.length, { filename: 'holiday.mp4', filetype: 'video/mp4' });
    const cuts = [0, MiB, 2 * MiB + 7, content.length];
    for (let i = 0; i < 2; i++) {
      const res = await tus.patch(location, cuts[i], content.subarray(cuts[i], cuts[i + 1]));
      expect(res.status).toBe(204);
      expect(res.headers.get('upload-offset')).toBe(String(cuts[i + 1]));
      expect(res.headers.get('upload-expires')).toBeTruthy();
    }
    const last = await tus.patch(location, cuts[2], content.subarray(cuts[2]));
    expect(last.status).toBe(200);
    expect(last.headers.get('upload-offset')).toBe(String(content.length));
    const body = await last.json();
    expect(body).toEqual({
      file: expect.objectContaining({
        originalName: 'holiday.mp4',
        mimeType: 'video/mp4',
        size: content.length,
        storedName: expect.stringMatching(/^[A-Za-z0-9_-]{22}\.mp4$/),
      }),
      url: `${app.url}/f/${body.file.id}`,
    });
    expect(sha256(await download(body.file.id))).toBe(sha256(content));
    const listed = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).json();
    expect(listed.files.map((file: { id: string }) => file.id)).toEqual([body.file.id]);
    expect(await app.partialContent()).toEqual(before);
    // Asked again later (a client that lost the last answer), the upload says it is complete.
    const head = await tus.head(location);
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(content.length));
    expect(head.headers.get('upload-length')).toBe(String(content.length));
  });

  it('when the whole file comes with the creation request, then the answer is 201 with the file', async () => {
    const { tus } = await newUser();
    const content = randomBytes(200_000);
    const res = await tus.create(content.length, { filename: 'notes.txt', filetype: 'text/plain' }, content);
    expect(res.status).toBe(201);
    expect(res.headers.get('upload-offset')).toBe(String(content.length));
    const body = await res.json();
    expect(body.file).toMatchObject({ originalName: 'notes.txt', size: content.length });
    expect(sha256(await download(body.file.id))).toBe(sha256(content));
  });

  it('when an upload of 0 bytes is created, with no body or an empty one, then the creation answers 201 with the file, listed with size 0, serving 0 bytes, with its link settings, and the upload is finished', async () => {
    const { cookie, tus } = await newUser();
    const before = await app.partialContent();
    // As tus-js-client creates an empty file (no Content-Type, no body), and as a client that sends the bytes with the creation does.
    const bare = await tus.create(0, {
      filename: 'empty.txt',
      filetype: 'text/plain',
      maxDownloads: '3',
      expiresIn: '7200',
    });
    const withBody = await tus.create(0, { filename: 'also-empty.txt', password: 'sesame-sesame' }, new Uint8Array(0));
    const files = [];
    for (const [res, expected] of [
      [bare, { originalName: 'empty.txt', mimeType: 'text/plain', size: 0, maxDownloads: 3, hasPassword: false }],
      [withBody, { originalName: 'also-empty.txt', size: 0, hasPassword: true }],
    ] as const) {
      expect(res.status).toBe(201);
      const location = res.headers.get('location')!;
      expect(location).toMatch(/^\/api\/v1\/uploads\/[A-Za-z0-9_-]{22}$/);
      const body = await res.json();
      expect(body).toEqual({ file: expect.objectContaining(expected), url: `${app.url}/f/${body.file.id}` });
      const [upload] = await app.rows('select finished_at from resumable_uploads where id = ?', [
        location.slice(location.lastIndexOf('/') + 1),
      ]);
      expect(upload.finished_at).not.toBeNull();
      // Complete on HEAD; nothing more can be sent.
      const head = await tus.head(location);
      expect([head.status, head.headers.get('upload-offset'), head.headers.get('upload-length')]).toEqual([
        200,
        '0',
        '0',
      ]);
      expect((await tus.patch(location, 0, new Uint8Array(0))).status).toBe(400);
      files.push(body.file);
    }
    const [empty, locked] = files;
    expect(new Date(empty.expiresAt).getTime() - clock.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    const listed = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).json();
    expect(listed.files.map((file: { id: string; size: number }) => [file.id, file.size]).sort()).toEqual(
      [
        [empty.id, 0],
        [locked.id, 0],
      ].sort(),
    );
    expect((await download(empty.id)).length).toBe(0);
    expect((await fetch(`${app.url}/f/${locked.id}/raw`)).status).toBe(401);
    expect(await app.partialContent()).toEqual(before);
  });

  it('when tus-js-client uploads an empty file (it sends no PATCH for one), then its success carries the file, which is listed', async () => {
    const { cookie } = await newUser();
    const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      new Upload(Buffer.alloc(0), {
        endpoint: `${app.url}/api/v1/uploads`,
        headers: { cookie },
        metadata: { filename: 'nothing.log', filetype: 'text/plain' },
        onSuccess: ({ lastResponse }) => resolve({ status: lastResponse.getStatus(), body: lastResponse.getBody() }),
        onError: reject,
      }).start();
    });
    expect(response.status).toBe(201);
    const { file } = JSON.parse(response.body);
    expect(file).toMatchObject({ originalName: 'nothing.log', size: 0 });
    const listed = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).json();
    expect(listed.files).toEqual([expect.objectContaining({ id: file.id, size: 0 })]);
    expect((await download(file.id)).length).toBe(0);
  });

  it('when requests break off at several offsets, then HEAD says how far each got and the upload resumes there to the same SHA-256', async () => {
    const { tus } = await newUser();
    const before = await app.partialContent();
    // Past one S3 part (8 MiB) and short of it, so both a part and the bytes short of one are resumed.
    const content = randomBytes(13 * MiB + 5);
    const location = await created(tus, content.length);
    let offset = 0;
    for (const sent of [3 * MiB, 6 * MiB + 17, 200_000]) {
      await tus.patchBrokenOff(location, offset, content.subarray(offset, offset + sent), content.length - offset);
      const now = await offsetOnceSettled(tus, location, offset + sent);
      expect(now).toBe(offset + sent);
      offset = now;
    }
    const res = await tus.patch(location, offset, content.subarray(offset));
    expect(res.status).toBe(200);
    const { file } = await res.json();
    expect(file.size).toBe(content.length);
    expect(sha256(await download(file.id))).toBe(sha256(content));
    expect(await app.partialContent()).toEqual(before);
  });

  it('when a PATCH names the wrong offset, then it is 409 and the upload is unchanged', async () => {
    const { tus } = await newUser();
    const location = await created(tus, 1000);
    expect((await tus.patch(location, 0, new Uint8Array(100))).status).toBe(204);
    for (const wrong of [0, 50, 101, 900]) {
      const res = await tus.patch(location, wrong, new Uint8Array(10));
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }
    expect((await tus.head(location)).headers.get('upload-offset')).toBe('100');
  });

  it('when two PATCHes at the same offset arrive together, then one wins, the other is refused, and the content is not corrupted', async () => {
    const { tus } = await newUser();
    const content = randomBytes(4 * MiB);
    const location = await created(tus, content.length);
    const first = content.subarray(0, 2 * MiB);
    const results = await Promise.all([tus.patch(location, 0, first), tus.patch(location, 0, first)]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses[0]).toBe(204);
    expect([409, 423]).toContain(statuses[1]);
    expect((await tus.head(location)).headers.get('upload-offset')).toBe(String(2 * MiB));
    const res = await tus.patch(location, 2 * MiB, content.subarray(2 * MiB));
    expect(res.status).toBe(200);
    expect(sha256(await download((await res.json()).file.id))).toBe(sha256(content));
  });

  it("when another user asks for someone's upload, then HEAD, PATCH and DELETE are 404 and nothing changes; without a login they are 401", async () => {
    const owner = await newUser();
    const other = await newUser();
    const location = await created(owner.tus, 100);
    expect((await owner.tus.patch(location, 0, new Uint8Array(40))).status).toBe(204);
    expect((await other.tus.head(location)).status).toBe(404);
    expect((await other.tus.patch(location, 40, new Uint8Array(10))).status).toBe(404);
    expect((await other.tus.remove(location)).status).toBe(404);
    const anonymous = await fetch(location, { method: 'HEAD', headers: TUS });
    expect(anonymous.status).toBe(401);
    expect((await owner.tus.head(location)).headers.get('upload-offset')).toBe('40');
  });

  it('when Upload-Length is over MAX_UPLOAD_BYTES, then the creation is 413 and nothing is made', async () => {
    const { name, tus } = await newUser();
    const res = await tus.create(MAX_UPLOAD_BYTES + 1);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    expect(
      await app.rows('select r.id from resumable_uploads r join users u on u.id = r.user_id where u.username = ?', [
        name,
      ]),
    ).toEqual([]);
  });

  it('when a PATCH carries more than the declared length, then it is 413 and nothing past the length is stored', async () => {
    const { tus } = await newUser();
    const location = await created(tus, 100);
    const res = await tus.patch(location, 0, new Uint8Array(150));
    expect(res.status).toBe(413);
    expect(Number((await tus.head(location)).headers.get('upload-offset'))).toBeLessThanOrEqual(100);
  });

  it('when a PATCH without Content-Length (chunked) carries more than the declared length, then it is 413, what fitted is kept and the upload still completes', async () => {
    const { cookie, tus } = await newUser();
    const content = randomBytes(300_000);
    const location = await created(tus, 200_000);
    const pieces = [content.subarray(0, 100_000), content.subarray(100_000, 300_000)];
    const res = await fetch(location, {
      method: 'PATCH',
      headers: { ...TUS, cookie, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new ReadableStream<Uint8Array>({
        async pull(controller) {
          const piece = pieces.shift();
          if (!piece) return controller.close();
          controller.enqueue(piece);
          // The first piece is stored before the excess arrives.
          await new Promise((resolve) => setTimeout(resolve, 200));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    const offset = Number((await tus.head(location)).headers.get('upload-offset'));
    // The first piece arrived whole before the excess: it is kept.
    expect(offset).toBeGreaterThanOrEqual(100_000);
    expect(offset).toBeLessThan(200_000);
    const rest = await tus.patch(location, offset, content.subarray(offset, 200_000));
    expect(rest.status).toBe(200);
    expect(sha256(await download((await rest.json()).file.id))).toBe(sha256(content.subarray(0, 200_000)));
  });

  it('when a chunked PATCH carries more than the declared length in its very first piece, then it is 413, the server keeps answering and the upload still completes', async () => {
    const { cookie, tus } = await newUser();
    const location = await created(tus, 10);
    // One piece, past the length at once (what `printf 'hello world' | curl -T -` sends): its
    // refusal came before anything read the content, and the process went down with it.
    const res = await fetch(location, {
      method: 'PATCH',
      headers: { ...TUS, cookie, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('hello world'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.any(String) });
    const offset = Number((await tus.head(location)).headers.get('upload-offset'));
    expect(offset).toBeLessThanOrEqual(10);
    const rest = await tus.patch(location, offset, new TextEncoder().encode('hello worl').subarray(offset));
    expect(rest.status).toBe(200);
    expect((await download((await rest.json()).file.id)).toString()).toBe('hello worl');
  });

  it('when a PATCH comes after the upload is complete, with no bytes, more bytes or from another offset, then each is 400 "already complete" and the file is unchanged', async () => {
    const { tus } = await newUser();
    const location = await created(tus, 10);
    const done = await tus.patch(location, 0, new Uint8Array(10).fill(1));
    const { file } = await done.json();
    // tus would judge the offset (409) or the bytes past the length (413) first: the upload being complete is what is wrong.
    for (const [offset, bytes] of [
      [10, 0],
      [10, 5],
      [0, 5],
      [3, 0],
    ]) {
      const again = await tus.patch(location, offset, new Uint8Array(bytes).fill(2));
      expect(again.status, `${bytes} bytes at ${offset}`).toBe(400);
      expect(await again.json()).toEqual({ error: 'This upload is already complete' });
    }
    expect((await tus.remove(location)).status).toBe(400);
    expect(await download(file.id)).toEqual(Buffer.alloc(10, 1));
  });

  it('when the metadata has a name and type with unsafe characters, then they are cleaned as for a multipart upload, and a password is never echoed', async () => {
    const { tus } = await newUser();
    const res = await tus.create(
      3,
      { filename: 'evil\u202egpj.exe\u0007', filetype: 'not a type', password: 'sesame-sesame' },
      new Uint8Array([1, 2, 3]),
    );
    const { file } = await res.json();
    expect(file).toMatchObject({
      originalName: 'evilgpj.exe',
      mimeType: 'application/octet-stream',
      hasPassword: true,
    });
    const location = res.headers.get('location')!;
    const head = await tus.head(location);
    const metadata = head.headers.get('upload-metadata') ?? '';
    expect(metadata).not.toContain(Buffer.from('sesame-sesame').toString('base64'));
    expect(metadata).not.toContain('password');
  });

  it('when share settings come in the metadata, then the file has them; a bad one is a 400 at creation', async () => {
    const { tus } = await newUser();
    const res = await tus.create(5, { filename: 'a.txt', maxDownloads: '3', expiresIn: '7200' }, new Uint8Array(5));
    const { file } = await res.json();
    expect(file.maxDownloads).toBe(3);
    expect(new Date(file.expiresAt).getTime() - clock.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
    const bad = await tus.create(5, { filename: 'a.txt', maxDownloads: 'lots' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringContaining('maxDownloads') });
  });

  it('when an upload is under way, then it is not among the files, and DELETE ends it and removes its bytes', async () => {
    const { cookie, name, tus } = await newUser();
    const before = await app.partialContent();
    const location = await created(tus, 10 * MiB);
    expect((await tus.patch(location, 0, randomBytes(MiB))).status).toBe(204);
    expect((await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).json()).files).toEqual([]);
    expect((await app.partialContent()).length).toBeGreaterThan(before.length);
    const res = await tus.remove(location);
    expect(res.status).toBe(204);
    expect((await tus.head(location)).status).toBe(404);
    expect(await app.partialContent()).toEqual(before);
    expect(
      await app.rows('select r.id from resumable_uploads r join users u on u.id = r.user_id where u.username = ?', [
        name,
      ]),
    ).toEqual([]);
  });

  it('when a day passes without the upload finishing, then it is swept with its bytes and HEAD is 404', async () => {
    const { tus } = await newUser();
    const before = await app.partialContent();
    const location = await created(tus, 10 * MiB);
    expect((await tus.patch(location, 0, randomBytes(MiB))).status).toBe(204);
    clock.advance(24 * 3600_000 + 1000);
    // The sweep removes the row (HEAD 404) and then the bytes: wait for both.
    const newContent = async () => (await app.partialContent()).filter((name) => !before.includes(name));
    const deadline = Date.now() + 5000;
    while (((await tus.head(location)).status !== 404 || (await newContent()).length > 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await tus.head(location)).status).toBe(404);
    // The other tests' unfinished uploads are a day old too by now: swept as well.
    expect(await newContent()).toEqual([]);
    expect((await app.partialContent()).length).toBeLessThan(before.length + 1);
  });

  it('when a script uses an API token, then it uploads the same way', async () => {
    const { cookie } = await newUser();
    const token = await fetch(`${app.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tus' }),
    });
    const { token: secret } = await token.json();
    const tus = tusClient(app.url, `Bearer ${secret}`);
    const location = await created(tus, 4);
    const res = await tus.patch(location, 0, new Uint8Array([9, 9, 9, 9]));
    expect(res.status).toBe(200);
  });

  it('when tus-js-client (the standard client) uploads in 1 MiB chunks, and resumes an upload begun elsewhere, then both end as files with the right bytes', async () => {
    const { cookie, tus } = await newUser();
    const content = randomBytes(3 * MiB + 99);
    const viaClient = (options: Partial<ConstructorParameters<typeof Upload>[1]>) =>
      new Promise<{ id: string; chunks: number }>((resolve, reject) => {
        let chunks = 0;
        const upload = new Upload(content, {
          endpoint: `${app.url}/api/v1/uploads`,
          headers: { cookie },
          chunkSize: MiB,
          metadata: { filename: 'client.bin', filetype: 'application/octet-stream' },
          onChunkComplete: () => void chunks++,
          onSuccess: ({ lastResponse }) => resolve({ id: JSON.parse(lastResponse.getBody()).file.id, chunks }),
          onError: reject,
          ...options,
        });
        upload.start();
      });
    const whole = await viaClient({});
    expect(whole.chunks).toBe(4);
    expect(sha256(await download(whole.id))).toBe(sha256(content));

    const location = await created(tus, content.length, { filename: 'client.bin' });
    expect((await tus.patch(location, 0, content.subarray(0, 2 * MiB))).status).toBe(204);
    const resumed = await viaClient({ uploadUrl: location });
    expect(resumed.chunks).toBe(2);
    expect(sha256(await download(resumed.id))).toBe(sha256(content));
  });

  it('when Tus-Resumable is missing or names another version, then POST, HEAD, PATCH and DELETE are 412 with Tus-Version: 1.0.0, and nothing is made or changed', async () => {
    const { cookie, name, tus } = await newUser();
    const location = await created(tus, 100);
    expect((await tus.patch(location, 0, new Uint8Array(40))).status).toBe(204);
    for (const version of [undefined, '0.2.2', '2.0.0']) {
      const headers: Record<string, string> = { cookie, ...(version ? { 'Tus-Resumable': version } : {}) };
      const answers = [
        await fetch(`${app.url}/api/v1/uploads`, { method: 'POST', headers: { ...headers, 'Upload-Length': '10' } }),
        await fetch(location, { method: 'HEAD', headers }),
        await fetch(location, {
          method: 'PATCH',
          headers: { ...headers, 'Upload-Offset': '40', 'Content-Type': OFFSET_OCTET_STREAM },
          body: new Uint8Array(10),
        }),
        await fetch(location, { method: 'DELETE', headers }),
      ];
      for (const res of answers) {
        expect([version, res.status, res.headers.get('tus-version'), res.headers.get('tus-resumable')]).toEqual([
          version,
          412,
          '1.0.0',
          '1.0.0',
        ]);
        if (res.body)
          expect(await res.json()).toEqual({ error: 'This server speaks tus 1.0.0: send Tus-Resumable: 1.0.0' });
      }
    }
    expect((await tus.head(location)).headers.get('upload-offset')).toBe('40');
    expect(
      await app.rows('select r.id from resumable_uploads r join users u on u.id = r.user_id where u.username = ?', [
        name,
      ]),
    ).toHaveLength(1);
  });

  it('when a PATCH has no Upload-Offset, then 400; when its Content-Type is missing or another, then 415; the upload is unchanged', async () => {
    const { cookie, tus } = await newUser();
    const location = await created(tus, 100);
    const patch = (headers: Record<string, string>) =>
      fetch(location, { method: 'PATCH', headers: { ...TUS, cookie, ...headers }, body: new Uint8Array(10) });
    const noOffset = await patch({ 'Content-Type': OFFSET_OCTET_STREAM });
    expect(noOffset.status).toBe(400);
    expect(await noOffset.json()).toEqual({ error: 'Upload-Offset is required' });
    for (const type of [undefined, 'text/plain', 'application/octet-stream']) {
      const res = await patch({ 'Upload-Offset': '0', ...(type ? { 'Content-Type': type } : {}) });
      expect([type, res.status]).toEqual([type, 415]);
      expect(await res.json()).toEqual({ error: 'Content-Type must be application/offset+octet-stream' });
    }
    expect((await tus.head(location)).headers.get('upload-offset')).toBe('0');
  });

  it('when a creation defers its length (Upload-Defer-Length, not among the extensions) or names none, then 400 "Upload-Length is required", nothing is made; a PATCH that sends Upload-Length is 400 too', async () => {
    const { cookie, name, tus } = await newUser();
    const create = (headers: Record<string, string>) =>
      fetch(`${app.url}/api/v1/uploads`, { method: 'POST', headers: { ...TUS, cookie, ...headers } });
    const asked: Record<string, string>[] = [
      { 'Upload-Defer-Length': '1' },
      {},
      { 'Upload-Length': '10', 'Upload-Defer-Length': '1' },
    ];
    for (const headers of asked) {
      const res = await create(headers);
      expect([headers, res.status]).toEqual([headers, 400]);
      expect(await res.json()).toEqual({
        error: 'Upload-Length is required: this server does not support Upload-Defer-Length',
      });
    }
    expect(
      await app.rows('select r.id from resumable_uploads r join users u on u.id = r.user_id where u.username = ?', [
        name,
      ]),
    ).toEqual([]);
    const location = await created(tus, 10);
    const withLength = await fetch(location, {
      method: 'PATCH',
      headers: { ...TUS, cookie, 'Upload-Offset': '0', 'Upload-Length': '10', 'Content-Type': OFFSET_OCTET_STREAM },
      body: new Uint8Array(4),
    });
    expect(withLength.status).toBe(400);
    expect(await withLength.json()).toEqual({ error: 'Upload-Length is set at creation and cannot be sent later' });
    expect((await tus.head(location)).headers.get('upload-offset')).toBe('0');
  });

  it('when a creation asks for concatenation (Upload-Concat, not among the extensions), partial or final, then 400 that says so and nothing is made', async () => {
    const { cookie, name } = await newUser();
    const asked: Record<string, string>[] = [
      { 'Upload-Concat': 'partial', 'Upload-Length': '10' },
      { 'Upload-Concat': 'final;/api/v1/uploads/a /api/v1/uploads/b' },
    ];
    for (const headers of asked) {
      const res = await fetch(`${app.url}/api/v1/uploads`, { method: 'POST', headers: { ...TUS, cookie, ...headers } });
      expect([headers, res.status]).toEqual([headers, 400]);
      expect(await res.json()).toEqual({ error: 'Upload-Concat is not supported: send each file as one upload' });
    }
    expect(
      await app.rows('select r.id from resumable_uploads r join users u on u.id = r.user_id where u.username = ?', [
        name,
      ]),
    ).toEqual([]);
  });

  it('when OPTIONS is asked, then the server names tus 1.0.0, its extensions and its largest size', async () => {
    const res = await fetch(`${app.url}/api/v1/uploads`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('tus-version')).toBe('1.0.0');
    expect(res.headers.get('tus-extension')).toBe('creation,creation-with-upload,termination,expiration');
    expect(res.headers.get('tus-max-size')).toBe(String(MAX_UPLOAD_BYTES));
  });
});

describe('a resumable upload under a quota', () => {
  const QUOTA = 100_000;
  let quotaApp: TestApp;
  beforeAll(async () => {
    quotaApp = await startApp({ DEFAULT_QUOTA_BYTES: String(QUOTA) });
  });
  afterAll(() => quotaApp.close());

  async function quotaUser(name: string) {
    await quotaApp.createUser(name);
    const cookie = await quotaApp.login(name);
    return { cookie, tus: tusClient(quotaApp.url, cookie) };
  }
  const multipart = (cookie: string, bytes: number) =>
    fetch(`${quotaApp.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie },
      body: fileForm(new Uint8Array(bytes), 'm.bin'),
    });

  it('when Upload-Length is more than the quota leaves, then the creation is 413 "Storage quota exceeded" with the room left', async () => {
    const { cookie, tus } = await quotaUser('tusquota1');
    expect((await multipart(cookie, 30_000)).status).toBe(201);
    const res = await tus.create(70_001);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'Storage quota exceeded: 70 kB of your 100 kB is free' });
    expect((await tus.create(70_000)).status).toBe(201);
  });

  it('when the quota is used up, then an empty upload still becomes a file, as an empty multipart upload does', async () => {
    const { cookie, tus } = await quotaUser('tusquota3');
    expect((await multipart(cookie, QUOTA)).status).toBe(201);
    expect((await multipart(cookie, 1)).status).toBe(413);
    const res = await tus.create(0, { filename: 'empty.txt' });
    expect(res.status).toBe(201);
    expect((await res.json()).file).toMatchObject({ originalName: 'empty.txt', size: 0 });
    expect((await multipart(cookie, 0)).status).toBe(201);
    const listed = await (await fetch(`${quotaApp.url}/api/v1/files`, { headers: { cookie } })).json();
    expect(listed.files.map((file: { size: number }) => file.size).sort()).toEqual([0, 0, QUOTA]);
  });

  it('when an upload has begun, then its whole length is held until it finishes or is abandoned', async () => {
    const { cookie, tus } = await quotaUser('tusquota2');
    const first = await tus.create(60_000);
    const location = first.headers.get('location')!;
    // Held: neither another upload of either kind nor a second resumable one fits beside it.
    expect((await multipart(cookie, 50_000)).status).toBe(413);
    expect((await tus.create(50_000)).status).toBe(413);
    // Abandoned: the space is back.
    expect((await tus.remove(location)).status).toBe(204);
    const second = await tus.create(60_000);
    expect(second.status).toBe(201);
    // Finished: the file counts instead, once.
    const done = await tus.patch(second.headers.get('location')!, 0, new Uint8Array(60_000));
    expect(done.status).toBe(200);
    expect((await multipart(cookie, 40_000)).status).toBe(201);
    expect((await multipart(cookie, 1)).status).toBe(413);
  });
});
