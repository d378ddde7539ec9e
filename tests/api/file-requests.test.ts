// File requests (ADR 0048): a user's link through which guests without an account send files
// into the user's space. The owner's API (/api/v1/requests), and the guest's side as a script
// sends it (`curl -F file=@x -H 'Accept: application/json' <BASE_URL>/r/<id>`). Both backends.
import type { FileRequestDto, ReceivedFileDto } from '../../server/services/file-requests/owner';
import { fileForm } from '../helpers/app';
import { BOUNDARY, MULTIPART_TYPE, partHead, poll } from '../helpers/multipart';
import { openRequest } from '../helpers/raw-http';
import { describe, expect, registeredUser, test, type TestUser } from '../helpers/fixtures';

const JSON_HEADERS = { 'content-type': 'application/json' };

async function createRequest(user: TestUser, body: Record<string, unknown>): Promise<FileRequestDto> {
  const res = await user.fetch('/api/v1/requests', {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { request: FileRequestDto }).request;
}

/** A guest's upload as curl sends it, asking for JSON: the status and the body. */
async function guestSends(
  baseUrl: string,
  requestId: string,
  files: Array<{ content: string | Uint8Array<ArrayBuffer>; name: string }>,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('file', new Blob([file.content]), file.name);
  const res = await fetch(`${baseUrl}/r/${requestId}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function received(user: TestUser, id: string): Promise<{ request: FileRequestDto; files: ReceivedFileDto[] }> {
  const res = await user.fetch(`/api/v1/requests/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { request: FileRequestDto; files: ReceivedFileDto[] };
}

describe('the owner’s requests', () => {
  test('when alice creates a request, then it is listed with its link, limits and state, and bob cannot see it', async ({
    app,
    alice,
    bob,
  }) => {
    const request = await createRequest(alice, {
      title: 'Scans for the tax return',
      message: 'Please send the receipts.',
      maxFiles: 3,
      maxBytes: 1000,
      requireName: true,
    });
    expect(request).toMatchObject({
      title: 'Scans for the tax return',
      message: 'Please send the receipts.',
      maxFiles: 3,
      maxBytes: 1000,
      requireName: true,
      hasPassword: false,
      state: 'open',
      filesReceived: 0,
      bytesReceived: 0,
      newFiles: 0,
    });
    expect(request.url).toBe(`${app.config.baseUrl}/r/${request.id}`);
    expect(request.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const list = (await (await alice.fetch('/api/v1/requests')).json()) as { requests: FileRequestDto[] };
    expect(list.requests.map((r) => r.id)).toContain(request.id);
    const bobs = (await (await bob.fetch('/api/v1/requests')).json()) as { requests: FileRequestDto[] };
    expect(bobs.requests.map((r) => r.id)).not.toContain(request.id);
    expect((await bob.fetch(`/api/v1/requests/${request.id}`)).status).toBe(403);
    expect((await bob.fetch(`/api/v1/requests/${request.id}`, { method: 'DELETE' })).status).toBe(403);
  });

  test('when a request is made without a title or with a bad limit, then it is a 400 naming the field', async ({
    app,
    alice,
  }) => {
    for (const [body, word] of [
      [{}, 'title'],
      [{ title: 'x', maxFiles: 0 }, 'maxFiles'],
      [{ title: 'x', maxBytes: -5 }, 'maxBytes'],
      [{ title: 'x', expiresAt: '2000-01-01T00:00:00Z' }, 'expiresAt'],
    ] as const) {
      const res = await alice.fetch('/api/v1/requests', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain(word);
    }
    expect((await fetch(`${app.url}/api/v1/requests`)).status).toBe(401);
  });

  test('when alice closes, reopens and deletes a request, then guests are told 410 while closed, and 404 once deleted; the files stay hers', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Closing' });
    expect((await guestSends(app.url, request.id, [{ content: 'one', name: 'one.txt' }])).status).toBe(201);

    const closed = await alice.fetch(`/api/v1/requests/${request.id}`, {
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: JSON.stringify({ closed: true }),
    });
    expect(closed.status).toBe(200);
    expect(((await closed.json()) as { request: FileRequestDto }).request.state).toBe('closed');
    const refused = await guestSends(app.url, request.id, [{ content: 'two', name: 'two.txt' }]);
    expect(refused).toEqual({ status: 410, body: { error: 'This file request is closed: it takes no more files.' } });

    const reopened = await alice.fetch(`/api/v1/requests/${request.id}`, {
      method: 'PATCH',
      headers: JSON_HEADERS,
      body: JSON.stringify({ closed: false }),
    });
    expect(((await reopened.json()) as { request: FileRequestDto }).request.state).toBe('open');
    expect((await guestSends(app.url, request.id, [{ content: 'three', name: 'three.txt' }])).status).toBe(201);

    const { files } = await received(alice, request.id);
    expect(files.map((f) => f.originalName).sort()).toEqual(['one.txt', 'three.txt']);

    expect((await alice.fetch(`/api/v1/requests/${request.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await alice.fetch(`/api/v1/requests/${request.id}`)).status).toBe(404);
    expect((await guestSends(app.url, request.id, [{ content: 'four', name: 'four.txt' }])).status).toBe(404);
    // What arrived stays in her files.
    const list = (await (await alice.fetch('/api/v1/files')).json()) as { files: Array<{ originalName: string }> };
    expect(list.files.map((f) => f.originalName)).toEqual(expect.arrayContaining(['one.txt', 'three.txt']));
  });
});

describe('a request deleted while a guest sends', () => {
  test('when the owner deletes a request while a guest’s file is streaming in, then the guest is told it is gone (404), and no file, bytes or place stay', async ({
    app,
    alice,
  }) => {
    for (const limits of [{}, { maxBytes: 50_000_000 }]) {
      const request = await createRequest(alice, { title: 'Deleted mid-stream', ...limits });
      const before = await app.storedFiles();
      const { request: req, answer } = openRequest(`${app.url}/r/${request.id}`, {
        method: 'POST',
        headers: { 'content-type': MULTIPART_TYPE, accept: 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.write(partHead({ name: 'file', filename: 'half.bin', contentType: 'application/octet-stream' }));
      req.write(Buffer.alloc(2_000_000, 1));
      // The upload has taken its place in the request: the guest is sending.
      expect(
        await poll(
          async () =>
            (await app.rows('select id from file_request_uploads where request_id = ?', [request.id])).length === 1,
        ),
      ).toBe(true);
      expect((await alice.fetch(`/api/v1/requests/${request.id}`, { method: 'DELETE' })).status).toBe(200);
      req.write(Buffer.alloc(2_000_000, 2));
      req.end(`\r\n--${BOUNDARY}--\r\n`);
      const { status, text } = await answer;
      expect(status).toBe(404);
      expect(JSON.parse(text)).toEqual({ error: 'File request not found' });
      expect(await app.rows('select id from files where original_name = ?', ['half.bin'])).toEqual([]);
      expect(await app.storedFiles()).toEqual(before);
      expect(await app.rows('select id from file_request_uploads where request_id = ?', [request.id])).toEqual([]);
    }
  });
});

describe('a guest sending files', () => {
  test('when a guest sends two files with a name and a note, then the owner has them with both, counted as new, and the guest learns only what they sent', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Photos', requireName: true });
    const sent = await guestSends(
      app.url,
      request.id,
      [
        { content: 'first photo', name: 'a.jpg' },
        { content: 'second', name: 'b.jpg' },
      ],
      { name: 'Carol <b>C</b>', note: 'From the party' },
    );
    expect(sent).toEqual({
      status: 201,
      body: {
        files: [
          { originalName: 'a.jpg', size: 11 },
          { originalName: 'b.jpg', size: 6 },
        ],
      },
    });
    expect(JSON.stringify(sent.body)).not.toContain(alice.username);
    const { request: now, files } = await received(alice, request.id);
    expect(now).toMatchObject({ filesReceived: 2, bytesReceived: 17, newFiles: 2 });
    expect(files.map((f) => [f.originalName, f.guestName, f.guestNote, f.isNew]).sort()).toEqual([
      ['a.jpg', 'Carol <b>C</b>', 'From the party', true],
      ['b.jpg', 'Carol <b>C</b>', 'From the party', true],
    ]);
    // Her files, stored as her uploads are.
    const raw = await alice.fetch(`/f/${files.find((f) => f.originalName === 'a.jpg')?.id}/raw`);
    expect(await raw.text()).toBe('first photo');
  });

  test('when a request asks for a name and none is left, then it is a 400 and nothing is stored', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Named', requireName: true });
    const before = await app.storedFiles();
    const sent = await guestSends(app.url, request.id, [{ content: 'x', name: 'x.txt' }], { note: 'no name' });
    expect(sent.status).toBe(400);
    expect(sent.body.error).toContain('name');
    expect(await app.storedFiles()).toEqual(before);
  });

  test('when a request is expired or unknown, then the guest is told 410 expired or 404', async ({ app, alice }) => {
    const request = await createRequest(alice, { title: 'Soon over', expiresIn: 60 });
    await app.rows('update file_requests set expires_at = ? where id = ?', [
      app.config.database.dialect === 'postgresql' ? new Date(Date.now() - 1000) : Date.now() - 1000,
      request.id,
    ]);
    expect(await guestSends(app.url, request.id, [{ content: 'x', name: 'x.txt' }])).toEqual({
      status: 410,
      body: { error: 'This file request has expired: it takes no more files.' },
    });
    expect((await guestSends(app.url, 'AAAAAAAAAAAAAAAAAAAAAA', [{ content: 'x', name: 'x.txt' }])).status).toBe(404);
  });

  test('when a file is larger than the room left in the request, then it is a 413, the request keeps its room, and nothing is stored', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Small', maxBytes: 100 });
    expect((await guestSends(app.url, request.id, [{ content: 'x'.repeat(60), name: 'a.bin' }])).status).toBe(201);
    const before = await app.storedFiles();
    const tooBig = await guestSends(app.url, request.id, [{ content: 'y'.repeat(41), name: 'b.bin' }]);
    expect(tooBig).toEqual({
      status: 413,
      body: { error: 'This file is larger than the room left in this file request.' },
    });
    expect(await app.storedFiles()).toEqual(before);
    expect((await guestSends(app.url, request.id, [{ content: 'z'.repeat(40), name: 'c.bin' }])).status).toBe(201);
    expect(await guestSends(app.url, request.id, [{ content: 'w', name: 'd.bin' }])).toEqual({
      status: 410,
      body: { error: 'This file request is full: it has received all the files it asked for.' },
    });
    expect((await received(alice, request.id)).request).toMatchObject({ bytesReceived: 100, state: 'full' });
  });

  test('when a body carries more files than the request has room for, then none of them is kept (all or nothing)', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Two only', maxFiles: 2 });
    const before = await app.storedFiles();
    const sent = await guestSends(app.url, request.id, [
      { content: '1', name: '1.txt' },
      { content: '2', name: '2.txt' },
      { content: '3', name: '3.txt' },
    ]);
    expect(sent.status).toBe(410);
    expect(await app.storedFiles()).toEqual(before);
    expect((await received(alice, request.id)).files).toEqual([]);
  });

  test('when 20 guests send at once to a request for 5 files, then exactly 5 are accepted, the others are told it is full, and no stray bytes stay', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Race', maxFiles: 5 });
    const before = await app.storedFiles();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        guestSends(app.url, request.id, [{ content: new Uint8Array(200_000).fill(i), name: `g${i}.bin` }]),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    for (const result of results.filter((r) => r.status !== 201)) {
      expect(result.status).toBe(410);
      expect(result.body.error).toBe('This file request is full: it has received all the files it asked for.');
    }
    const { files } = await received(alice, request.id);
    expect(files).toHaveLength(5);
    expect((await app.storedFiles()).length).toBe(before.length + 5);
    expect(await app.incompleteFiles()).toEqual([]);
    expect(await app.rows('select id from file_request_uploads')).toEqual([]);
  });

  test('when 10 guests send at once to a request of 1 MB, then the bytes accepted never pass it', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Bytes race', maxBytes: 1_000_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        guestSends(app.url, request.id, [{ content: new Uint8Array(300_000).fill(i), name: `b${i}.bin` }]),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const result of results.filter((r) => r.status !== 201)) expect([410, 413]).toContain(result.status);
    expect((await received(alice, request.id)).request.bytesReceived).toBe(900_000);
    expect(await app.incompleteFiles()).toEqual([]);
  });

  test('when the owner’s quota is nearly used, then a guest’s file past it is refused and the quota is never passed', async ({
    app,
    alice,
  }) => {
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where id = ?', [true, 1_000, alice.id]);
    try {
      const request = await createRequest(alice, { title: 'Quota' });
      const before = await app.storedFiles();
      const sent = await guestSends(app.url, request.id, [{ content: new Uint8Array(5_000), name: 'big.bin' }]);
      expect(sent.status).toBe(413);
      expect(sent.body.error).toContain('quota');
      expect(await app.storedFiles()).toEqual(before);
    } finally {
      await app.rows('update users set has_own_quota = ?, quota_bytes = ? where id = ?', [false, null, alice.id]);
    }
  });

  test('when a request has a password, then a guest without it is a 401, with a wrong one a 401, with the right one 201', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Secret', password: 'open sesame' });
    expect(request.hasPassword).toBe(true);
    expect((await guestSends(app.url, request.id, [{ content: 'x', name: 'x.txt' }])).status).toBe(401);
    expect(
      (await guestSends(app.url, request.id, [{ content: 'x', name: 'x.txt' }], { password: 'nope' })).status,
    ).toBe(401);
    const right = await guestSends(app.url, request.id, [{ content: 'x', name: 'x.txt' }], { password: 'open sesame' });
    expect(right.status).toBe(201);
    // The guest's password is the request's: it never becomes the file's share password.
    const { files } = await received(alice, request.id);
    const file = (await (await alice.fetch('/api/v1/files')).json()) as {
      files: Array<{ id: string; hasPassword: boolean }>;
    };
    expect(file.files.find((f) => f.id === files[0].id)?.hasPassword).toBe(false);
  });

  test('when an address has sent its share of files, then the next is a 429 with Retry-After', async ({
    app,
    alice,
  }) => {
    const request = await createRequest(alice, { title: 'Throttled' });
    const key = 'guest-upload:127.0.0.1';
    const windowEnds = Date.now() + 10 * 60_000;
    await app.rows('delete from login_attempts where "key" like ?', ['guest-upload:%']);
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      await app.rows('insert into login_attempts ("key", failures, pending, window_ends_at) values (?, ?, ?, ?)', [
        key.replace('127.0.0.1', address),
        200,
        0,
        windowEnds,
      ]);
    const res = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: fileForm('x', 'x.txt'),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    await app.rows('delete from login_attempts where "key" like ?', ['guest-upload:%']);
  });
});

describe('a guest’s files in the owner’s list', () => {
  test('when guests send files through a request, then the owner’s list, whole, paged and searched, names the request and what each guest left; her own files say null, and a deleted request keeps the guest’s words', async ({
    app,
  }) => {
    const owner = await registeredUser(app, 'tess');
    const request = await createRequest(owner, { title: 'Tax papers' });
    const note = 'The <b>2025</b> ones';
    expect(
      (await guestSends(app.url, request.id, [{ content: 'receipts', name: 'receipts.pdf' }], { name: 'Carol', note }))
        .status,
    ).toBe(201);
    expect((await guestSends(app.url, request.id, [{ content: 'no name', name: 'anonymous.txt' }])).status).toBe(201);
    await owner.upload('mine', 'mine.txt', 'text/plain');

    const listed = async () => {
      const seen = [];
      for (const query of ['', '?limit=10', '?q=t', '?q=t&limit=10']) {
        const res = await owner.fetch(`/api/v1/files${query}`);
        expect(res.status).toBe(200);
        const { files } = (await res.json()) as {
          files: Array<{ originalName: string; request: unknown; receivedFrom: unknown }>;
        };
        seen.push(Object.fromEntries(files.map((file) => [file.originalName, [file.request, file.receivedFrom]])));
      }
      // The same in every way the list is read.
      for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
      return seen[0];
    };
    const asRequest = { id: request.id, title: 'Tax papers' };
    expect(await listed()).toEqual({
      'receipts.pdf': [asRequest, { name: 'Carol', note }],
      'anonymous.txt': [asRequest, null],
      'mine.txt': [null, null],
    });

    expect((await owner.fetch(`/api/v1/requests/${request.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await listed()).toEqual({
      'receipts.pdf': [null, { name: 'Carol', note }],
      'anonymous.txt': [null, null],
      'mine.txt': [null, null],
    });
  });
});

describe('file requests through tRPC', () => {
  function trpc(user: TestUser, procedure: string, input?: unknown) {
    return input === undefined
      ? user.fetch(`/trpc/requests.${procedure}`)
      : user.fetch(`/trpc/requests.${procedure}`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify(input),
        });
  }

  test('when alice creates, lists, closes and deletes a request through tRPC, then each is as through the API, and bob is refused (403) as with a file of hers', async ({
    alice,
    bob,
  }) => {
    const created = await trpc(alice, 'create', { title: 'Photos of the event', maxFiles: 10 });
    expect(created.status).toBe(200);
    const { request } = (await created.json()).result.data as { request: FileRequestDto };
    expect(request).toMatchObject({ title: 'Photos of the event', maxFiles: 10, state: 'open' });

    const bad = await trpc(alice, 'create', { title: '' });
    expect(bad.status).toBe(400);

    const listed = await trpc(alice, 'list');
    expect(listed.status).toBe(200);
    expect(((await listed.json()).result.data.requests as FileRequestDto[]).map((r) => r.id)).toContain(request.id);

    const closed = await trpc(alice, 'setClosed', { id: request.id, closed: true });
    expect(closed.status).toBe(200);
    expect((await closed.json()).result.data.request.state).toBe('closed');

    const foreign = await trpc(bob, 'delete', { id: request.id });
    expect(foreign.status).toBe(403);
    expect((await received(alice, request.id)).request.state).toBe('closed');

    expect((await trpc(alice, 'delete', { id: request.id })).status).toBe(200);
    expect((await alice.fetch(`/api/v1/requests/${request.id}`)).status).toBe(404);
  });
});
