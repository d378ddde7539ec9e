// File requests with two instances on one PostgreSQL database and one bucket (ADR 0048):
// a request's file and byte limits hold exactly when guests send through both at once, closing
// and reopening on one holds on the other at once, a password typed on one instance's page
// lets the guest send through the other, and a guest's resumable upload is carried on across
// both and takes its place once.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileRequestDto, ReceivedFileDto } from '../../server/services/file-requests/owner';
import type { TestApp } from '../helpers/app';
import { setUpTwoInstances } from '../helpers/instances';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';
import { OFFSET_OCTET_STREAM, TUS, uploadMetadata } from '../helpers/tus';

const FULL = 'This file request is full: it has received all the files it asked for.';
const CLOSED = 'This file request is closed: it takes no more files.';
const TOO_LARGE = 'This file is larger than the room left in this file request.';

let a: TestApp;
let b: TestApp;
let cookie: string;

setUpTwoInstances('collector', (instances) => {
  ({ a, b, cookie } = instances);
});

/** The owner makes a request on `app`. */
async function createRequest(app: TestApp, body: Record<string, unknown>): Promise<FileRequestDto> {
  const res = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

/** The owner closes or reopens a request on `app`. */
async function setClosed(app: TestApp, id: string, closed: boolean): Promise<FileRequestDto> {
  const res = await fetch(`${app.url}/api/v1/requests/${id}`, {
    method: 'PATCH',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ closed }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

/** What the owner sees of a request on `app`: the request and the files it received. */
async function received(app: TestApp, id: string): Promise<{ request: FileRequestDto; files: ReceivedFileDto[] }> {
  const res = await fetch(`${app.url}/api/v1/requests/${id}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as { request: FileRequestDto; files: ReceivedFileDto[] };
}

/** A guest's file as a script sends it to `app`, asking for JSON: the status and the body. */
async function guestSends(
  app: TestApp,
  requestId: string,
  content: Uint8Array<ArrayBuffer> | string,
  name: string,
  options: { fields?: Record<string, string>; grant?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [field, value] of Object.entries(options.fields ?? {})) form.append(field, value);
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${app.url}/r/${requestId}`, {
    method: 'POST',
    headers: { accept: 'application/json', ...(options.grant ? { cookie: options.grant } : {}) },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A guest's resumable upload created on `app` (no account): the status, the Location and the JSON body if any. */
async function guestCreates(
  app: TestApp,
  requestId: string,
  length: number,
  metadata: Record<string, string> = { filename: 'large.bin' },
  options: { grant?: string; body?: Uint8Array } = {},
): Promise<{ status: number; location: string | null; body: Record<string, unknown> | null }> {
  const res = await fetch(`${app.url}/r/${requestId}/uploads`, {
    method: 'POST',
    headers: {
      ...TUS,
      'Upload-Length': String(length),
      'Upload-Metadata': uploadMetadata(metadata),
      ...(options.grant ? { cookie: options.grant } : {}),
      ...(options.body ? { 'Content-Type': OFFSET_OCTET_STREAM } : {}),
    },
    body: options.body as BodyInit | undefined,
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

/** A guest's PATCH of `body` at `offset`, sent to the upload's address on `app`. */
function guestPatches(app: TestApp, location: string, offset: number, body: Uint8Array): Promise<Response> {
  return fetch(`${app.url}${new URL(location).pathname}`, {
    method: 'PATCH',
    headers: { ...TUS, 'Upload-Offset': String(offset), 'Content-Type': OFFSET_OCTET_STREAM },
    body: body as BodyInit,
  });
}

/** The request's files as rows: what the database holds, whatever either instance says. */
async function fileRows(requestId: string): Promise<Array<{ id: string; storedName: string; size: number }>> {
  const rows = await a.rows('select id, stored_name, size from files where request_id = ? order by id', [requestId]);
  return rows.map((row) => ({ id: String(row.id), storedName: String(row.stored_name), size: Number(row.size) }));
}

async function placesOf(requestId: string): Promise<unknown[]> {
  return a.rows('select id from file_request_uploads where request_id = ?', [requestId]);
}

/** Objects in the bucket that were not there before. */
async function newObjects(before: string[]): Promise<string[]> {
  return (await a.storedFiles()).filter((name) => !before.includes(name)).sort();
}

describe('file requests across two instances', () => {
  it('when 20 guests send at once to a request for 5 files, half through each instance, then exactly 5 are stored, the 15 others are told it is full, and the bucket holds exactly those 5', async () => {
    const request = await createRequest(a, { title: 'Race across instances', maxFiles: 5 });
    const before = await a.storedFiles();
    const contents = Array.from({ length: 20 }, (_, i) => new Uint8Array(100_000).fill(i + 1));
    const results = await Promise.all(
      contents.map((content, i) => guestSends(i % 2 ? a : b, request.id, content, `guest-${i}.bin`)),
    );

    const accepted = results.flatMap((result, i) => (result.status === 201 ? [i] : []));
    expect(accepted).toHaveLength(5);
    for (const i of accepted)
      expect(results[i].body).toEqual({ files: [{ originalName: `guest-${i}.bin`, size: 100_000 }] });
    for (const result of results.filter((r) => r.status !== 201))
      expect(result).toEqual({ status: 410, body: { error: FULL } });

    // The owner sees the same 5 on either instance, and the request is full.
    const onA = await received(a, request.id);
    const onB = await received(b, request.id);
    expect(onA.request).toMatchObject({ state: 'full', filesReceived: 5, bytesReceived: 500_000 });
    expect(onB.request).toMatchObject({ state: 'full', filesReceived: 5, bytesReceived: 500_000 });
    const names = accepted.map((i) => `guest-${i}.bin`).sort();
    expect(onA.files.map((file) => file.originalName).sort()).toEqual(names);
    expect(onB.files.map((file) => file.id).sort()).toEqual(onA.files.map((file) => file.id).sort());

    // The rows marked with the request are those 5, and the bucket holds their contents and nothing else new.
    const rows = await fileRows(request.id);
    expect(rows.map((row) => row.id)).toEqual(onA.files.map((file) => file.id).sort());
    expect(await newObjects(before)).toEqual(rows.map((row) => row.storedName).sort());
    for (const file of onA.files) {
      const guest = Number(/^guest-(\d+)\.bin$/.exec(file.originalName)?.[1]);
      const row = rows.find((r) => r.id === file.id);
      expect(Buffer.from(contents[guest]).equals((await a.readStored(row?.storedName ?? '')) ?? Buffer.alloc(0))).toBe(
        true,
      );
    }
    expect(await a.incompleteFiles()).toEqual([]);
    expect(await placesOf(request.id)).toEqual([]);
  });

  it('when guests on both instances send at once into one byte limit, then the bytes accepted never pass it, and every refused file left no object and no row', async () => {
    const limit = 1_000_000;
    const request = await createRequest(b, { title: 'Bytes across instances', maxBytes: limit });
    const before = await a.storedFiles();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        guestSends(i % 2 ? a : b, request.id, new Uint8Array(300_000).fill(i + 1), `bytes-${i}.bin`),
      ),
    );

    // Three files of 300,000 fit in 1,000,000; a refused file gives its room back under the same
    // lock, so no file is refused while the room for it is there.
    const accepted = results.filter((result) => result.status === 201);
    const acceptedBytes = accepted.length * 300_000;
    expect(acceptedBytes).toBeLessThanOrEqual(limit);
    expect(accepted).toHaveLength(3);
    for (const result of results.filter((r) => r.status !== 201)) {
      if (result.status === 413) expect(result.body).toEqual({ error: TOO_LARGE });
      else expect(result).toEqual({ status: 410, body: { error: FULL } });
    }

    expect((await received(a, request.id)).request.bytesReceived).toBe(acceptedBytes);
    const rows = await fileRows(request.id);
    expect(rows).toHaveLength(accepted.length);
    expect(await newObjects(before)).toEqual(rows.map((row) => row.storedName).sort());
    expect(await a.incompleteFiles()).toEqual([]);
    expect(await placesOf(request.id)).toEqual([]);
    // What is left of the limit still takes a file that fits, on either instance.
    const room = limit - acceptedBytes;
    expect((await guestSends(a, request.id, new Uint8Array(room).fill(9), 'the-rest.bin')).status).toBe(201);
    expect(await guestSends(b, request.id, 'x', 'one-too-many.bin')).toEqual({ status: 410, body: { error: FULL } });
  });

  it('when the owner closes a request on one instance, then a guest on the other is told at once that it is closed (page and JSON), and once reopened it takes files again', async () => {
    const request = await createRequest(a, { title: 'Closing across instances' });
    expect((await guestSends(b, request.id, 'before', 'before.txt')).status).toBe(201);

    expect((await setClosed(a, request.id, true)).state).toBe('closed');
    const page = await getPage(b, `/r/${request.id}`);
    expect(page.status).toBe(410);
    expect(visibleText(await page.text())).toContain(CLOSED);
    expect(await guestSends(b, request.id, 'while closed', 'closed.txt')).toEqual({
      status: 410,
      body: { error: CLOSED },
    });
    expect(await guestCreates(b, request.id, 10)).toMatchObject({ status: 410, body: { error: CLOSED } });

    expect((await setClosed(b, request.id, false)).state).toBe('open');
    expect((await getPage(a, `/r/${request.id}`)).status).toBe(200);
    expect((await guestSends(a, request.id, 'after on A', 'after-a.txt')).status).toBe(201);
    expect((await guestSends(b, request.id, 'after on B', 'after-b.txt')).status).toBe(201);
    const { files } = await received(b, request.id);
    expect(files.map((file) => file.originalName).sort()).toEqual(['after-a.txt', 'after-b.txt', 'before.txt']);
  });

  it('when a guest types a protected request’s password on one instance’s page, then its cookie lets them open the page and send through the other', async () => {
    const request = await createRequest(a, { title: 'Protected across instances', password: 'shared secret' });
    expect((await guestSends(b, request.id, 'no password', 'x.txt')).status).toBe(401);

    const unlocked = await postForm(a, `/r/${request.id}`, { intent: 'unlock', password: 'shared secret' });
    expect(unlocked.status).toBe(303);
    const grant = unlocked.headers.getSetCookie()[0].split(';')[0];

    const page = await getPage(b, `/r/${request.id}`, grant);
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('Protected across instances');
    expect(await guestSends(b, request.id, 'sent through B', 'form.txt', { grant })).toEqual({
      status: 201,
      body: { files: [{ originalName: 'form.txt', size: 14 }] },
    });
    // The cookie also lets a resumable upload in on B (created with its bytes, so it finishes at once).
    const resumable = await guestCreates(
      b,
      request.id,
      4,
      { filename: 'tus.txt' },
      { grant, body: Buffer.from('tus!') },
    );
    expect(resumable).toMatchObject({ status: 201, body: { files: [{ originalName: 'tus.txt', size: 4 }] } });
    const { files } = await received(b, request.id);
    expect(files.map((file) => file.originalName).sort()).toEqual(['form.txt', 'tus.txt']);
  });

  it('when a guest’s resumable upload is created on one instance and its pieces go half to each, then the file arrives whole and counts once against the file limit', async () => {
    const request = await createRequest(a, { title: 'Resumable across instances', maxFiles: 2 });
    const content = randomBytes(3 * 1024 * 1024 + 12_345);
    const created = await guestCreates(a, request.id, content.length, {
      filename: 'footage.mov',
      name: 'Erin',
      note: 'Both cameras',
    });
    expect(created.status).toBe(201);
    const location = created.location ?? '';
    expect(location).toMatch(new RegExp(`^${a.url}/r/${request.id}/uploads/[A-Za-z0-9_-]{22}$`));

    const pieces = 6;
    const step = Math.ceil(content.length / pieces);
    for (let piece = 0; piece < pieces; piece++) {
      const offset = piece * step;
      const res = await guestPatches(piece % 2 ? b : a, location, offset, content.subarray(offset, offset + step));
      if (piece < pieces - 1) {
        expect(res.status).toBe(204);
        expect(res.headers.get('upload-offset')).toBe(String(offset + step));
      } else {
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ files: [{ originalName: 'footage.mov', size: content.length }] });
      }
    }

    const { request: now, files } = await received(b, request.id);
    expect(now).toMatchObject({ filesReceived: 1, bytesReceived: content.length, state: 'open' });
    expect(files.map((file) => [file.originalName, file.size, file.guestName, file.guestNote])).toEqual([
      ['footage.mov', content.length, 'Erin', 'Both cameras'],
    ]);
    const raw = await fetch(`${a.url}/f/${files[0].id}/raw`, { headers: { cookie } });
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
    expect(await placesOf(request.id)).toEqual([]);

    // Counted once: one more file fits, on either instance, and then the request is full.
    expect((await guestSends(b, request.id, 'second', 'second.txt')).status).toBe(201);
    expect(await guestSends(a, request.id, 'third', 'third.txt')).toEqual({ status: 410, body: { error: FULL } });
    expect(await guestCreates(b, request.id, 10)).toMatchObject({ status: 410, body: { error: FULL } });
  });

  it('when two guests create resumable uploads for the last place at once on different instances, then exactly one gets it and the other is told it is full', async () => {
    for (let round = 0; round < 4; round++) {
      const request = await createRequest(round % 2 ? a : b, { title: `Last place ${round}`, maxFiles: 2 });
      expect((await guestSends(a, request.id, 'first', 'first.txt')).status).toBe(201);
      const [onA, onB] = await Promise.all([
        guestCreates(a, request.id, 1000, { filename: 'from-a.bin' }),
        guestCreates(b, request.id, 1000, { filename: 'from-b.bin' }),
      ]);
      expect([onA.status, onB.status].sort()).toEqual([201, 410]);
      const [winner, loser] = onA.status === 201 ? [onA, onB] : [onB, onA];
      expect(loser.body).toEqual({ error: FULL });
      // The winner finishes through the instance it did not start on; the request is then full.
      const other = winner === onA ? b : a;
      const done = await guestPatches(other, winner.location ?? '', 0, new Uint8Array(1000).fill(round));
      expect(done.status).toBe(200);
      const { request: now } = await received(a, request.id);
      expect(now).toMatchObject({ filesReceived: 2, state: 'full' });
      expect(await placesOf(request.id)).toEqual([]);
    }
    expect(await a.partialContent()).toEqual([]);
  });

  it('when a form’s file on one instance and a resumable creation on the other race for the last place, then exactly one gets it', async () => {
    for (let round = 0; round < 4; round++) {
      const [formOn, tusOn] = round % 2 ? [a, b] : [b, a];
      const request = await createRequest(a, { title: `Form or resumable ${round}`, maxFiles: 1 });
      const [form, resumable] = await Promise.all([
        guestSends(formOn, request.id, new Uint8Array(50_000).fill(round), 'form.bin'),
        guestCreates(tusOn, request.id, 500, { filename: 'resumable.bin' }),
      ]);
      expect([form.status, resumable.status].sort()).toEqual([201, 410]);
      if (resumable.status === 201) {
        expect(form.body).toEqual({ error: FULL });
        expect((await guestPatches(formOn, resumable.location ?? '', 0, new Uint8Array(500))).status).toBe(200);
      } else expect(resumable.body).toEqual({ error: FULL });
      expect((await received(b, request.id)).request).toMatchObject({ filesReceived: 1, state: 'full' });
      expect(await placesOf(request.id)).toEqual([]);
    }
  });

  it('when resumable creations on one instance and forms’ files on the other race for one byte limit, then the lengths held and the bytes accepted never pass it, and the refused leave nothing', async () => {
    const limit = 1_000_000;
    const request = await createRequest(a, { title: 'Mixed bytes across instances', maxBytes: limit });
    const before = await a.storedFiles();
    const [creations, forms] = await Promise.all([
      Promise.all(
        Array.from({ length: 3 }, (_, i) => guestCreates(a, request.id, 300_000, { filename: `held-${i}.bin` })),
      ),
      Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          guestSends(b, request.id, new Uint8Array(300_000).fill(i + 1), `metered-${i}.bin`),
        ),
      ),
    ]);
    for (const refused of creations.filter((c) => c.status !== 201)) {
      if (refused.status === 413) expect(refused.body).toEqual({ error: TOO_LARGE });
      else expect(refused).toMatchObject({ status: 410, body: { error: FULL } });
    }
    for (const refused of forms.filter((f) => f.status !== 201)) {
      if (refused.status === 413) expect(refused.body).toEqual({ error: TOO_LARGE });
      else expect(refused).toEqual({ status: 410, body: { error: FULL } });
    }
    // Every upload that got a place finishes through B.
    const created = creations.filter((c) => c.status === 201);
    for (const [i, upload] of created.entries()) {
      const done = await guestPatches(b, upload.location ?? '', 0, new Uint8Array(300_000).fill(100 + i));
      expect(done.status).toBe(200);
    }
    const accepted = created.length + forms.filter((f) => f.status === 201).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted * 300_000).toBeLessThanOrEqual(limit);
    expect((await received(b, request.id)).request.bytesReceived).toBe(accepted * 300_000);
    const rows = await fileRows(request.id);
    expect(rows).toHaveLength(accepted);
    expect(await newObjects(before)).toEqual(rows.map((row) => row.storedName).sort());
    expect(await a.incompleteFiles()).toEqual([]);
    expect(await placesOf(request.id)).toEqual([]);
  });
});
