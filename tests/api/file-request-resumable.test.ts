// A guest's large files sent to a file request as resumable uploads (tus 1.0 at
// `<BASE_URL>/r/<id>/uploads`, ADR 0048): no account, the request's password, name, limits and
// throttle as for a form's files; the place in the request is held for the upload's whole life.
// Both backends.
import { FileRequestUploadSchema } from '../../server/db/entities/file-request.entity';
import type { FileRequestDto, ReceivedFileDto } from '../../server/services/file-requests/owner';
import { removeStaleRequestPlaces } from '../../server/services/request-metering';
import { fileForm } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { OFFSET_OCTET_STREAM, TUS, tusClient, uploadMetadata } from '../helpers/tus';

async function createRequest(user: TestUser, body: Record<string, unknown>): Promise<FileRequestDto> {
  const res = await user.fetch('/api/v1/requests', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

async function received(user: TestUser, id: string): Promise<{ request: FileRequestDto; files: ReceivedFileDto[] }> {
  const res = await user.fetch(`/api/v1/requests/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { request: FileRequestDto; files: ReceivedFileDto[] };
}

/** A guest's tus creation (no account): the status, the Location, and the JSON error if any. */
async function guestCreates(
  baseUrl: string,
  requestId: string,
  length: number,
  metadata: Record<string, string> = { filename: 'big.bin' },
  extra: { cookie?: string; body?: Uint8Array } = {},
): Promise<{ status: number; location: string | null; body: Record<string, unknown> | null }> {
  const res = await fetch(`${baseUrl}/r/${requestId}/uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      'Upload-Length': String(length),
      'Upload-Metadata': uploadMetadata(metadata),
      ...(extra.cookie ? { cookie: extra.cookie } : {}),
      ...(extra.body ? { 'Content-Type': OFFSET_OCTET_STREAM } : {}),
    },
    body: extra.body as BodyInit | undefined,
  });
  const text = await res.text();
  // The Location is relative: resolved against the address asked, as a client does.
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location && new URL(location, res.url).href,
    body: text ? JSON.parse(text) : null,
  };
}

/** A guest's PATCH of `body` at `offset`. */
function guestPatches(location: string, offset: number, body: Uint8Array): Promise<Response> {
  return fetch(location, {
    method: 'PATCH',
    headers: { ...TUS, 'Upload-Offset': String(offset), 'Content-Type': OFFSET_OCTET_STREAM },
    body: body as BodyInit,
  });
}

/** A guest's multipart file as a script sends it, asking for JSON: the status. */
async function guestSendsForm(baseUrl: string, requestId: string, content: string): Promise<number> {
  const res = await fetch(`${baseUrl}/r/${requestId}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: fileForm(content, 'small.txt'),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('a guest’s resumable uploads into a request', () => {
  test('when a guest sends a file in two pieces with a name and a note, then the owner has it whole, marked with both, and the guest learns only its name and size', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Raw footage', requireName: true });
    const content = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
    // A QuickTime file's first bytes: its type is read from them (ADR 0064).
    sampleOf('video/quicktime').copy(content);
    const created = await guestCreates(app.url, request.id, content.length, {
      filename: 'clip.mov',
      filetype: 'video/quicktime',
      name: 'Dana',
      note: 'Take 2',
    });
    expect(created.status).toBe(201);
    expect(created.location).toMatch(new RegExp(`^${app.url}/r/${request.id}/uploads/[A-Za-z0-9_-]{22}$`));
    const location = created.location as string;
    // Its place is held from the start: the owner sees one file under way, none received.
    const first = await guestPatches(location, 0, content.subarray(0, 100_000));
    expect(first.status).toBe(204);
    expect(first.headers.get('upload-offset')).toBe('100000');
    const head = await fetch(location, { method: 'HEAD', headers: TUS });
    expect(head.headers.get('upload-offset')).toBe('100000');
    expect(head.headers.get('upload-length')).toBe('300000');
    const last = await guestPatches(location, 100_000, content.subarray(100_000));
    expect(last.status).toBe(200);
    const answer = (await last.json()) as Record<string, unknown>;
    expect(answer).toEqual({ files: [{ originalName: 'clip.mov', size: 300_000 }] });
    expect(JSON.stringify(answer)).not.toContain(alice.username);

    const { request: now, files } = await received(alice, request.id);
    expect(now).toMatchObject({ filesReceived: 1, bytesReceived: 300_000, newFiles: 1 });
    expect(files.map((f) => [f.originalName, f.mimeType, f.guestName, f.guestNote])).toEqual([
      ['clip.mov', 'video/quicktime', 'Dana', 'Take 2'],
    ]);
    const raw = await alice.fetch(`/f/${files[0].id}/raw`);
    expect(Buffer.from(await raw.arrayBuffer()).equals(Buffer.from(content))).toBe(true);
    expect(await app.rows('select id from file_request_uploads where request_id = ?', [request.id])).toEqual([]);
  });

  test('when an upload is under way into a request for one file, then it holds the place: a second file is told the request is full until the upload is ended', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'One file', maxFiles: 1 });
    const created = await guestCreates(app.url, request.id, 1000);
    expect(created.status).toBe(201);
    expect(await guestSendsForm(app.url, request.id, 'too late')).toBe(410);
    const another = await guestCreates(app.url, request.id, 10);
    expect(another.status).toBe(410);
    expect(another.body).toEqual({ error: 'This file request is full: it has received all the files it asked for.' });
    // The guest ends their upload: the place is free again.
    const ended = await fetch(created.location as string, { method: 'DELETE', headers: TUS });
    expect(ended.status).toBe(204);
    expect(await app.rows('select id from file_request_uploads where request_id = ?', [request.id])).toEqual([]);
    expect(await guestSendsForm(app.url, request.id, 'now it fits')).toBe(201);
  });

  test('when a declared length is larger than the room left in the request, then the creation is a 413 and nothing is held', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Small', maxBytes: 1000 });
    const tooLarge = await guestCreates(app.url, request.id, 1001);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ error: 'This file is larger than the room left in this file request.' });
    const fits = await guestCreates(app.url, request.id, 600);
    expect(fits.status).toBe(201);
    // The first upload holds its 600 bytes, received or not.
    expect((await guestCreates(app.url, request.id, 500)).status).toBe(413);
    expect((await guestCreates(app.url, request.id, 400)).status).toBe(201);
    expect(await app.rows('select id from resumable_uploads where request_id = ?', [request.id])).toHaveLength(2);
  });

  test('when a request asks for a name, has a password or is closed, then a creation is refused as a form’s files are (400, 401, 410) and nothing is held', async ({
    app,
    alice,
  }) => {
    const named = await createRequest(alice, { title: 'Named', requireName: true });
    const nameless = await guestCreates(app.url, named.id, 10);
    expect(nameless).toMatchObject({
      status: 400,
      body: { error: 'Please leave your name: this request asks for it.' },
    });

    const secret = await createRequest(alice, { title: 'Secret', password: 'open sesame' });
    expect((await guestCreates(app.url, secret.id, 10)).status).toBe(401);
    expect((await guestCreates(app.url, secret.id, 10, { filename: 'a', password: 'nope' })).status).toBe(401);
    const right = await guestCreates(
      app.url,
      secret.id,
      1,
      { filename: 'a.txt', password: 'open sesame' },
      {
        body: new TextEncoder().encode('x'),
      },
    );
    expect(right.status).toBe(201);
    expect(right.body).toEqual({ files: [{ originalName: 'a.txt', size: 1 }] });
    // The request's password never becomes the file's share password.
    const { files } = await received(alice, secret.id);
    const list = (await (await alice.fetch('/api/v1/files')).json()) as {
      files: Array<{ id: string; hasPassword: boolean }>;
    };
    expect(list.files.find((f) => f.id === files[0].id)?.hasPassword).toBe(false);

    const closing = await createRequest(alice, { title: 'Closing' });
    const before = await guestCreates(app.url, closing.id, 4);
    expect(before.status).toBe(201);
    await alice.fetch(`/api/v1/requests/${closing.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ closed: true }),
    });
    const after = await guestCreates(app.url, closing.id, 4);
    expect(after).toMatchObject({
      status: 410,
      body: { error: 'This file request is closed: it takes no more files.' },
    });
    // An upload begun while it was open stops with it (tests/api/file-request-stops.test.ts).
    expect((await guestPatches(before.location as string, 0, new TextEncoder().encode('done'))).status).toBe(410);
    expect(await app.rows('select id from file_request_uploads where request_id = ?', [closing.id])).toEqual([]);
    expect((await received(alice, closing.id)).request).toMatchObject({ state: 'closed', filesReceived: 0 });
  });

  test('when an upload is asked for through another request, or an owner’s own upload through a request, then it is unknown (404)', async ({
    app,
    alice,
  }) => {
    const one = await createRequest(alice, { title: 'One' });
    const other = await createRequest(alice, { title: 'Other' });
    const created = await guestCreates(app.url, one.id, 10);
    const uploadId = (created.location as string).split('/').pop();
    const elsewhere = `${app.url}/r/${other.id}/uploads/${uploadId}`;
    expect((await fetch(elsewhere, { method: 'HEAD', headers: TUS })).status).toBe(404);
    const patched = await guestPatches(elsewhere, 0, new Uint8Array(10));
    expect(patched.status).toBe(404);
    expect(await patched.json()).toEqual({ error: 'Upload not found' });
    expect((await fetch(elsewhere, { method: 'DELETE', headers: TUS })).status).toBe(404);

    const own = await tusClient(app.url, alice.cookie).create(10);
    expect(own.status).toBe(201);
    const ownId = (own.headers.get('location') as string).split('/').pop();
    expect((await fetch(`${app.url}/r/${one.id}/uploads/${ownId}`, { method: 'HEAD', headers: TUS })).status).toBe(404);
    // And an unknown request is unknown.
    expect((await guestCreates(app.url, 'nosuchrequest', 10)).status).toBe(404);
  });

  test('when the owner deletes a request while a guest’s upload is under way, then the upload is gone with its bytes, and no file arrives', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Deleted half-way' });
    const created = await guestCreates(app.url, request.id, 2000, { filename: 'late.bin' });
    const location = created.location as string;
    expect((await guestPatches(location, 0, new Uint8Array(1000))).status).toBe(204);
    expect(await app.rows('select id from resumable_uploads where request_id = ?', [request.id])).toHaveLength(1);

    expect((await alice.fetch(`/api/v1/requests/${request.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(location, { method: 'HEAD', headers: TUS })).status).toBe(404);
    const last = await guestPatches(location, 1000, new Uint8Array(1000));
    expect(last.status).toBe(404);
    expect(await last.json()).toEqual({ error: 'File request not found' });
    expect(await app.rows('select id from resumable_uploads where request_id = ?', [request.id])).toEqual([]);
    expect(await app.rows('select id from files where original_name = ?', ['late.bin'])).toEqual([]);
  });

  test('when the housekeeping runs, then the places of guest uploads whose receiver is gone are removed, and a resumable upload’s place stays for as long as its upload', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Housekeeping', maxFiles: 3 });
    const created = await guestCreates(app.url, request.id, 10);
    const uploadId = (created.location as string).split('/').pop() as string;
    const place = (id: string, ageMs: number) =>
      app.orm.em.fork().insert(FileRequestUploadSchema, {
        id,
        requestId: request.id,
        fileId: `file-${id}`,
        bytes: 0,
        updatedAt: new Date(Date.now() - ageMs),
      });
    await place('dead-receiver', 20 * 60_000);
    await place('live-receiver', 0);
    const placesNow = async () =>
      (await app.rows('select id from file_request_uploads where request_id = ?', [request.id]))
        .map((row) => row.id)
        .sort();
    expect(await placesNow()).toEqual(['dead-receiver', 'live-receiver', uploadId].sort());
    expect(await removeStaleRequestPlaces({ em: app.orm.em.fork(), clock: { now: Date.now } })).toBe(1);
    expect(await placesNow()).toEqual(['live-receiver', uploadId].sort());
    // Twenty minutes on, the resumable upload's place is as old as a dead receiver's, and stays.
    const later = { now: () => Date.now() + 20 * 60_000 };
    expect(await removeStaleRequestPlaces({ em: app.orm.em.fork(), clock: later })).toBe(1);
    expect(await placesNow()).toEqual([uploadId]);
    // At a start on SQLite nothing is under way: every receiver's place goes, however fresh.
    await place('fresh-receiver', 0);
    expect(await removeStaleRequestPlaces({ em: app.orm.em.fork(), clock: { now: Date.now } }, true)).toBe(1);
    expect(await placesNow()).toEqual([uploadId]);
  });
});
