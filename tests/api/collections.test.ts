// Collections over /api/v1/collections (docs/api.md): several of one user's files behind one link.
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { MULTIPART_TYPE, multipartBody } from '../helpers/multipart';
import { tusClient } from '../helpers/tus';

interface CollectionBody {
  collection: {
    id: string;
    title: string;
    url: string;
    fileCount: number;
    totalSize: number;
    hasPassword: boolean;
    expiresAt: string | null;
    maxDownloads: number | null;
    files: Array<{ path: string; file: { id: string; originalName: string; size: number } }>;
  };
}

function send(user: TestUser, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return user.fetch(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function makeCollection(user: TestUser, body: unknown): Promise<CollectionBody['collection']> {
  const res = await send(user, 'POST', '/api/v1/collections', body);
  expect(res.status).toBe(201);
  return ((await res.json()) as CollectionBody).collection;
}

describe('collections', () => {
  test('when a user makes a collection of two of her files with paths, then 201 with the collection in that order, its link, count and total size, and its rows', async ({
    app,
    alice,
  }) => {
    const beach = await alice.upload('sand and sea', 'beach.jpg', 'image/jpeg');
    const notes = await alice.upload('remember the hats', 'notes.txt', 'text/plain');
    const res = await send(alice, 'POST', '/api/v1/collections', {
      title: 'Holiday',
      files: [
        { id: notes.file.id, path: 'docs/notes.txt' },
        { id: beach.file.id, path: 'photos/2026/beach.jpg' },
      ],
    });
    expect(res.status).toBe(201);
    const { collection } = (await res.json()) as CollectionBody;
    expect(collection.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(collection).toMatchObject({
      title: 'Holiday',
      url: `${app.url}/c/${collection.id}`,
      fileCount: 2,
      totalSize: 12 + 17,
      hasPassword: false,
    });
    expect(res.headers.get('location')).toBe(collection.url);
    expect(collection.files.map((entry) => [entry.path, entry.file.id])).toEqual([
      ['docs/notes.txt', notes.file.id],
      ['photos/2026/beach.jpg', beach.file.id],
    ]);
    expect(await app.rows('select user_id, title from collections where id = ?', [collection.id])).toEqual([
      { user_id: alice.id, title: 'Holiday' },
    ]);
    expect(
      await app.rows('select file_id, position, path from collection_files where collection_id = ? order by position', [
        collection.id,
      ]),
    ).toEqual([
      { file_id: notes.file.id, position: 0, path: 'docs/notes.txt' },
      { file_id: beach.file.id, position: 1, path: 'photos/2026/beach.jpg' },
    ]);
  });

  test('when no path or title is given, then each file is named by its original name and the title counts the files', async ({
    alice,
  }) => {
    const one = await alice.upload('1', 'one.txt', 'text/plain');
    const two = await alice.upload('2', 'two.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: one.file.id }, { id: two.file.id }] });
    expect(collection.title).toBe('2 files');
    expect(collection.files.map((entry) => entry.path)).toEqual(['one.txt', 'two.txt']);
  });

  test('when the files are a folder’s (every path inside one top folder) and no title is given, then the collection, and its archive, are named after the folder; from several folders or none, the title counts them', async ({
    alice,
  }) => {
    const ids = [];
    for (const name of ['app.ts', 'README.md', 'notes.txt'])
      ids.push((await alice.upload(name, name, 'text/plain')).file.id);
    // Files uploaded first (resumable uploads), then made one collection with their relative paths.
    const folder = await makeCollection(alice, {
      files: [
        { id: ids[0], path: 'project/src/app.ts' },
        { id: ids[1], path: 'project/README.md' },
      ],
    });
    expect(folder.title).toBe('project');
    const archive = await alice.fetch(`/c/${folder.id}/archive`);
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-disposition')).toContain('filename="project.zip"');
    await archive.arrayBuffer();

    // The same folder sent as one multipart body, each file part after its path.
    const form = new FormData();
    form.append('path', 'project/src/app.ts');
    form.append('file', new Blob(['one']), 'app.ts');
    form.append('path', 'project/README.md');
    form.append('file', new Blob(['two']), 'README.md');
    const res = await alice.fetch('/api/v1/collections', { method: 'POST', body: form });
    expect(res.status).toBe(201);
    expect(((await res.json()) as CollectionBody).collection.title).toBe('project');

    const twoFolders = await makeCollection(alice, {
      files: [
        { id: ids[0], path: 'project/app.ts' },
        { id: ids[2], path: 'other/notes.txt' },
      ],
    });
    expect(twoFolders.title).toBe('2 files');
    const oneAtTheTop = await makeCollection(alice, {
      files: [
        { id: ids[0], path: 'project/app.ts' },
        { id: ids[2], path: 'notes.txt' },
      ],
    });
    expect(oneAtTheTop.title).toBe('2 files');
  });

  test('when a path would leave the folder it is extracted into, then 400 names it and nothing is made', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('x', 'x.txt', 'text/plain');
    const before = await app.rows('select count(*) as n from collections');
    for (const path of [
      '../evil.txt',
      'a/../../evil.txt',
      '/etc/passwd',
      'C:\\Windows\\evil.txt',
      'a\u0000b.txt',
      '',
    ]) {
      const res = await send(alice, 'POST', '/api/v1/collections', { files: [{ id: file.id, path }] });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/\S/);
    }
    expect(await app.rows('select count(*) as n from collections')).toEqual(before);
  });

  test('when a file of another user, an unknown id or the same file twice is named, then 400 and nothing is made', async ({
    app,
    alice,
    bob,
  }) => {
    const own = await alice.upload('mine', 'mine.txt', 'text/plain');
    const bobs = await bob.upload('his', 'his.txt', 'text/plain');
    const before = await app.rows('select count(*) as n from collections');
    for (const files of [
      [{ id: own.file.id }, { id: bobs.file.id }],
      [{ id: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      [{ id: own.file.id }, { id: own.file.id, path: 'again.txt' }],
      [],
    ]) {
      const res = await send(alice, 'POST', '/api/v1/collections', { files });
      expect(res.status).toBe(400);
    }
    expect(await app.rows('select count(*) as n from collections')).toEqual(before);
  });

  test('when collections are listed and read, then the owner sees hers newest first, and another user finds none of them', async ({
    alice,
    bob,
  }) => {
    const { file } = await alice.upload('a', 'a.txt', 'text/plain');
    const first = await makeCollection(alice, { title: 'First', files: [{ id: file.id }] });
    const second = await makeCollection(alice, { title: 'Second', files: [{ id: file.id }] });
    const listed = (await (await send(alice, 'GET', '/api/v1/collections')).json()) as {
      collections: Array<{ id: string; files?: unknown }>;
    };
    const ids = listed.collections.map((collection) => collection.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(listed.collections[0].files).toBeUndefined();

    const read = await send(alice, 'GET', `/api/v1/collections/${first.id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as CollectionBody).collection.files).toHaveLength(1);

    expect((await send(bob, 'GET', `/api/v1/collections/${first.id}`)).status).toBe(404);
    expect((await send(bob, 'PATCH', `/api/v1/collections/${first.id}`, { title: 'Mine now' })).status).toBe(404);
    expect((await send(bob, 'DELETE', `/api/v1/collections/${first.id}`)).status).toBe(404);
    const bobs = (await (await send(bob, 'GET', '/api/v1/collections')).json()) as { collections: unknown[] };
    expect(bobs.collections).toEqual([]);
  });

  test('when a collection is changed, then its title, order, paths and share settings are as sent, and a bad value is a 400 that changes nothing', async ({
    alice,
  }) => {
    const a = await alice.upload('a', 'a.txt', 'text/plain');
    const b = await alice.upload('bb', 'b.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: a.file.id }, { id: b.file.id }] });
    const res = await send(alice, 'PATCH', `/api/v1/collections/${collection.id}`, {
      title: 'Renamed',
      files: [{ id: b.file.id, path: 'second/b.txt' }, { id: a.file.id }],
      maxDownloads: 3,
      password: 'open sesame',
    });
    expect(res.status).toBe(200);
    const changed = ((await res.json()) as CollectionBody).collection;
    expect(changed).toMatchObject({ title: 'Renamed', maxDownloads: 3, hasPassword: true, fileCount: 2 });
    expect(changed.files.map((entry) => entry.path)).toEqual(['second/b.txt', 'a.txt']);

    const refused = await send(alice, 'PATCH', `/api/v1/collections/${collection.id}`, {
      title: 'Again',
      maxDownloads: -1,
    });
    expect(refused.status).toBe(400);
    const after = ((await (await send(alice, 'GET', `/api/v1/collections/${collection.id}`)).json()) as CollectionBody)
      .collection;
    expect(after).toMatchObject({ title: 'Renamed', maxDownloads: 3 });
  });

  test('when files are added and one is taken out, then the collection lists them in order, a file already in it is a 409, and a taken-out file stays', async ({
    alice,
  }) => {
    const a = await alice.upload('a', 'a.txt', 'text/plain');
    const b = await alice.upload('b', 'b.txt', 'text/plain');
    const c = await alice.upload('c', 'c.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: a.file.id }] });
    const added = await send(alice, 'POST', `/api/v1/collections/${collection.id}/files`, {
      files: [{ id: b.file.id }, { id: c.file.id, path: 'more/c.txt' }],
    });
    expect(added.status).toBe(200);
    expect(((await added.json()) as CollectionBody).collection.files.map((entry) => entry.path)).toEqual([
      'a.txt',
      'b.txt',
      'more/c.txt',
    ]);
    const again = await send(alice, 'POST', `/api/v1/collections/${collection.id}/files`, {
      files: [{ id: b.file.id }],
    });
    expect(again.status).toBe(409);

    const removed = await send(alice, 'DELETE', `/api/v1/collections/${collection.id}/files/${b.file.id}`);
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as CollectionBody).collection.files.map((entry) => entry.file.id)).toEqual([
      a.file.id,
      c.file.id,
    ]);
    expect((await alice.fetch(`/api/v1/files`)).status).toBe(200);
    expect((await alice.fetch(`/f/${b.file.id}/raw`)).status).toBe(200);
    expect((await send(alice, 'DELETE', `/api/v1/collections/${collection.id}/files/${b.file.id}`)).status).toBe(404);
  });

  test('when a file is deleted, then it leaves every collection it was in', async ({ alice }) => {
    const a = await alice.upload('a', 'a.txt', 'text/plain');
    const b = await alice.upload('b', 'b.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: a.file.id }, { id: b.file.id }] });
    expect((await send(alice, 'DELETE', `/api/v1/files/${a.file.id}`)).status).toBe(200);
    const after = ((await (await send(alice, 'GET', `/api/v1/collections/${collection.id}`)).json()) as CollectionBody)
      .collection;
    expect(after.files.map((entry) => entry.file.id)).toEqual([b.file.id]);
    expect(after.fileCount).toBe(1);
  });

  test('when a collection is deleted, then its files stay unless deleteFiles=true, which deletes them and their content', async ({
    app,
    alice,
  }) => {
    const kept = await alice.upload('kept', 'kept.txt', 'text/plain');
    const keeping = await makeCollection(alice, { files: [{ id: kept.file.id }] });
    const res = await send(alice, 'DELETE', `/api/v1/collections/${keeping.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, filesDeleted: 0 });
    expect((await alice.fetch(`/f/${kept.file.id}/raw`)).status).toBe(200);
    expect((await send(alice, 'GET', `/api/v1/collections/${keeping.id}`)).status).toBe(404);

    const gone = await alice.upload('gone', 'gone.txt', 'text/plain');
    const deleting = await makeCollection(alice, { files: [{ id: gone.file.id }] });
    expect((await send(alice, 'DELETE', `/api/v1/collections/${deleting.id}?deleteFiles=maybe`)).status).toBe(400);
    const withFiles = await send(alice, 'DELETE', `/api/v1/collections/${deleting.id}?deleteFiles=true`);
    expect(await withFiles.json()).toEqual({ ok: true, filesDeleted: 1 });
    expect(await app.rows('select id from files where id = ?', [gone.file.id])).toEqual([]);
    expect(await app.readStored(gone.file.storedName)).toBeNull();
  });

  test('when a script holds an API token, then it can make, change and delete collections', async ({ alice }) => {
    const token = await alice.createToken('collections');
    const { file } = await alice.upload('t', 't.txt', 'text/plain');
    const bearer = { authorization: `Bearer ${token}`, cookie: '' };
    const made = await send(alice, 'POST', '/api/v1/collections', { files: [{ id: file.id }] }, bearer);
    expect(made.status).toBe(201);
    const { collection } = (await made.json()) as CollectionBody;
    expect((await send(alice, 'PATCH', `/api/v1/collections/${collection.id}`, { title: 'T' }, bearer)).status).toBe(
      200,
    );
    expect((await send(alice, 'DELETE', `/api/v1/collections/${collection.id}`, undefined, bearer)).status).toBe(200);
  });

  test('when a resumable upload names a collection, then its file joins it at the end under its path once finished, and a collection that is not yours is refused at creation', async ({
    app,
    alice,
    bob,
  }) => {
    const first = await alice.upload('first', 'first.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: first.file.id }] });
    const tus = tusClient(app.url, alice.cookie);
    const content = new TextEncoder().encode('resumed into the set');
    const created = await tus.create(content.length, {
      filename: 'later.txt',
      collection: collection.id,
      path: 'notes/later.txt',
    });
    expect(created.status).toBe(201);
    const location = new URL(created.headers.get('location') ?? '', app.url).toString();
    // Not in the collection until the file exists.
    const before = ((await (await send(alice, 'GET', `/api/v1/collections/${collection.id}`)).json()) as CollectionBody)
      .collection;
    expect(before.fileCount).toBe(1);
    const finished = await tus.patch(location, 0, content);
    expect(finished.status).toBe(200);
    const { file } = (await finished.json()) as { file: { id: string } };
    const after = ((await (await send(alice, 'GET', `/api/v1/collections/${collection.id}`)).json()) as CollectionBody)
      .collection;
    expect(after.files.map((entry) => [entry.path, entry.file.id])).toEqual([
      ['first.txt', first.file.id],
      ['notes/later.txt', file.id],
    ]);

    const refused = await tusClient(app.url, bob.cookie).create(3, { filename: 'x.txt', collection: collection.id });
    expect(refused.status).toBe(400);
    const unsafe = await tus.create(3, { filename: 'x.txt', collection: collection.id, path: '../x.txt' });
    expect(unsafe.status).toBe(400);
  });

  test('when resumable uploads finish into one collection at the same moment, then every file joins it and the collection and its archive read the same each time', async ({
    app,
    alice,
  }) => {
    const first = await alice.upload('first', 'first.txt', 'text/plain');
    const collection = await makeCollection(alice, { files: [{ id: first.file.id }] });
    const tus = tusClient(app.url, alice.cookie);
    const uploads = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const content = new TextEncoder().encode(`file number ${i}`);
        const created = await tus.create(content.length, {
          filename: `f${i}.txt`,
          collection: collection.id,
          path: `together/f${i}.txt`,
        });
        expect(created.status).toBe(201);
        return { location: new URL(created.headers.get('location') ?? '', app.url).toString(), content };
      }),
    );
    const finished = await Promise.all(uploads.map(({ location, content }) => tus.patch(location, 0, content)));
    expect(finished.map((res) => res.status)).toEqual(Array(6).fill(200));

    const reads = [];
    for (let i = 0; i < 3; i++) {
      const read = ((await (await send(alice, 'GET', `/api/v1/collections/${collection.id}`)).json()) as CollectionBody)
        .collection;
      const archive = await fetch(`${app.url}/c/${collection.id}/archive`, { method: 'HEAD' });
      reads.push({ paths: read.files.map((entry) => entry.path), etag: archive.headers.get('etag') });
    }
    expect(reads[0].paths[0]).toBe('first.txt');
    expect([...reads[0].paths].sort()).toEqual([
      'first.txt',
      ...Array.from({ length: 6 }, (_, i) => `together/f${i}.txt`),
    ]);
    expect(reads[1]).toEqual(reads[0]);
    expect(reads[2]).toEqual(reads[0]);
  });

  test('when several files come in one multipart body, then each is stored and one collection holds them in order under their paths, with its title and settings', async ({
    app,
    alice,
  }) => {
    const form = new FormData();
    form.append('title', 'Sent at once');
    form.append('maxDownloads', '4');
    form.append('expiresIn', '3600');
    form.append('path', 'docs/a.txt');
    form.append('file', new Blob(['first file']), 'a.txt');
    form.append('file', new Blob(['second']), 'b.txt');
    form.append('path', 'pics/c.bin');
    form.append('file', new Blob([new Uint8Array(70_000).fill(3)]), 'c.bin');
    const res = await alice.fetch('/api/v1/collections', { method: 'POST', body: form });
    expect(res.status).toBe(201);
    const { collection } = (await res.json()) as CollectionBody;
    expect(collection).toMatchObject({
      title: 'Sent at once',
      maxDownloads: 4,
      fileCount: 3,
      totalSize: 10 + 6 + 70_000,
    });
    expect(collection.files.map((entry) => [entry.path, entry.file.originalName])).toEqual([
      ['docs/a.txt', 'a.txt'],
      ['b.txt', 'b.txt'],
      ['pics/c.bin', 'c.bin'],
    ]);
    // Each file has the link settings sent too: none of its own links is looser than the collection's.
    const [row] = await app.rows('select expires_at, max_downloads from files where id = ?', [
      collection.files[0].file.id,
    ]);
    expect(row.max_downloads).toBe(4);
    expect(new Date(row.expires_at as string | number).getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect(Buffer.from(await (await alice.fetch(`/f/${collection.files[2].file.id}/raw`)).arrayBuffer())).toEqual(
      Buffer.alloc(70_000, 3),
    );
  });

  test('when a multipart body for a collection is broken, has an unsafe path or no file, then 400 and none of its files is kept', async ({
    app,
    alice,
  }) => {
    const before = await app.rows('select count(*) as n from files where user_id = ?', [alice.id]);
    const post = (body: Buffer) =>
      alice.fetch('/api/v1/collections', {
        method: 'POST',
        headers: { 'content-type': MULTIPART_TYPE },
        body: new Uint8Array(body),
      });
    const whole = multipartBody([
      { name: 'file', filename: 'one.txt', content: 'one' },
      { name: 'file', filename: 'two.txt', content: 'two two two' },
    ]);
    // Cut inside the second file: the first was whole, and still goes.
    expect((await post(whole.subarray(0, whole.length - 30))).status).toBe(400);
    const unsafe = multipartBody([
      { name: 'file', filename: 'one.txt', content: 'one' },
      { name: 'path', content: '../../etc/passwd' },
      { name: 'file', filename: 'two.txt', content: 'two' },
    ]);
    expect((await post(unsafe)).status).toBe(400);
    expect((await post(multipartBody([{ name: 'title', content: 'Nothing' }]))).status).toBe(400);
    expect(await app.rows('select count(*) as n from files where user_id = ?', [alice.id])).toEqual(before);
    expect(await app.rows('select id from collections where user_id = ? and title = ?', [alice.id, 'Nothing'])).toEqual(
      [],
    );
  });
});
