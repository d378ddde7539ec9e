// "Download all" of a collection, /c/<id>/archive (ADR 0036): one ZIP of its files, with a
// Content-Length, resumable by byte range, under the collection's share controls.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { allowErrorLogs } from '../setup/expected-errors';
import { checkWithUnzip, readWithYauzl, sha256 } from '../helpers/zip-archives';

/** Deterministic bytes, different for every seed. */
function contentOf(seed: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let state = (seed * 2654435761 + 1) >>> 0;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

const FILES = [
  { path: 'readme.txt', name: 'readme.txt', content: Buffer.from('Everything from the trip.\n') },
  { path: 'photos/2026/beach.jpg', name: 'beach.jpg', content: contentOf(1, 700_000) },
  { path: 'photos/2026/résumé 📄.pdf', name: 'resume.pdf', content: contentOf(2, 3_001) },
  { path: 'empty.txt', name: 'empty.txt', content: Buffer.alloc(0) },
];

async function collectionOf(user: TestUser, settings: Record<string, unknown> = {}) {
  const files = [];
  for (const file of FILES) {
    const { file: uploaded } = await user.upload(file.content, file.name);
    files.push({ id: uploaded.id, path: file.path });
  }
  const res = await user.fetch('/api/v1/collections', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Trip', files, ...settings }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { collection: { id: string } }).collection;
}

function expectedEntries(): Map<string, string> {
  return new Map(FILES.map((file) => [file.path, sha256(file.content)]));
}

const visitor = (app: { url: string }, path: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { headers });

describe('a collection archive', () => {
  test('when a visitor downloads it, then it is a ZIP with a Content-Length that yauzl and unzip -t open, each file byte-identical under its path', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice);
    const res = await visitor(app, `/c/${id}/archive`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Trip.zip"/);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);

    const read = await readWithYauzl(bytes);
    expect(new Map(read.map((entry) => [entry.name, entry.sha256]))).toEqual(expectedEntries());
    // UTF-8 names (general purpose bit 11), as the uploader's path says.
    expect(read.every((entry) => (entry.flags & 0x800) !== 0)).toBe(true);
    expect(await checkWithUnzip(bytes, await mkdtemp(join(tmpdir(), 'archive-')))).toEqual(expectedEntries());
  });

  test('when a download is resumed with Range and If-Range, then the two parts join into the same archive; with a stale If-Range the whole archive comes again', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice);
    const whole = await visitor(app, `/c/${id}/archive`);
    const etag = whole.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"c-[A-Za-z0-9_-]+"$/);
    const bytes = Buffer.from(await whole.arrayBuffer());

    for (const split of [1, 30, 100_000, bytes.length - 22, bytes.length - 1]) {
      const first = await visitor(app, `/c/${id}/archive`, { range: `bytes=0-${split - 1}` });
      expect(first.status).toBe(206);
      const rest = await visitor(app, `/c/${id}/archive`, { range: `bytes=${split}-`, 'if-range': etag });
      expect(rest.status).toBe(206);
      expect(rest.headers.get('content-range')).toBe(`bytes ${split}-${bytes.length - 1}/${bytes.length}`);
      const joined = Buffer.concat([Buffer.from(await first.arrayBuffer()), Buffer.from(await rest.arrayBuffer())]);
      expect(joined.equals(bytes)).toBe(true);
    }

    const stale = await visitor(app, `/c/${id}/archive`, { range: 'bytes=10-', 'if-range': '"c-older"' });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test('when the collection changes, then its archive has another ETag, so a resume of the old one starts over', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice);
    const before = (await visitor(app, `/c/${id}/archive`, { range: 'bytes=0-0' })).headers.get('etag');
    await alice.fetch(`/api/v1/collections/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Trip' }),
    });
    expect((await visitor(app, `/c/${id}/archive`, { range: 'bytes=0-0' })).headers.get('etag')).toBe(before);
    const { file } = await alice.upload('later', 'later.txt', 'text/plain');
    await alice.fetch(`/api/v1/collections/${id}/files`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ files: [{ id: file.id }] }),
    });
    expect((await visitor(app, `/c/${id}/archive`, { range: 'bytes=0-0' })).headers.get('etag')).not.toBe(before);
  });

  test('when the collection allows two downloads, then a range resumed with the claim of a counted one does not count again, the owner is never counted, and after the second it is gone', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice, { maxDownloads: 2 });
    expect((await alice.fetch(`/c/${id}/archive`)).status).toBe(200);
    const first = await visitor(app, `/c/${id}/archive`, { range: 'bytes=0-99' });
    expect(first.status).toBe(206);
    const etag = first.headers.get('etag') ?? '';
    // The claim the counted answer left (ADR 0056), as the browser sends it back.
    const claim = (first.headers.getSetCookie().find((c) => c.startsWith(`claim_${id}=`)) ?? '').split(';')[0];
    const resumed = await visitor(app, `/c/${id}/archive`, { range: 'bytes=100-', 'if-range': etag, cookie: claim });
    expect(resumed.status).toBe(206);
    await resumed.arrayBuffer();
    expect(await app.rows('select downloads from collections where id = ?', [id])).toEqual([{ downloads: 1 }]);
    const second = await visitor(app, `/c/${id}/archive`);
    expect(second.status).toBe(200);
    await second.arrayBuffer();
    expect(await app.rows('select downloads from collections where id = ?', [id])).toEqual([{ downloads: 2 }]);
    const again = await visitor(app, `/c/${id}/archive`);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('download limit');
  });

  test('when the collection has a password, then the archive needs it: none is 401, a wrong one 401, the right one the archive', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice, { password: 'correct horse' });
    expect((await visitor(app, `/c/${id}/archive`)).status).toBe(401);
    expect((await visitor(app, `/c/${id}/archive`, { 'x-share-password': 'wrong' })).status).toBe(401);
    const opened = await visitor(app, `/c/${id}/archive`, { 'x-share-password': 'correct horse' });
    expect(opened.status).toBe(200);
    expect(
      new Map((await readWithYauzl(Buffer.from(await opened.arrayBuffer()))).map((e) => [e.name, e.sha256])),
    ).toEqual(expectedEntries());
  });

  test('when files were stored before their CRC-32 was kept, then the archive computes it once, keeps it, and is still right', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice);
    const rows = await app.rows(
      'select f.id from files f join collection_files c on c.file_id = f.id where c.collection_id = ?',
      [id],
    );
    for (const row of rows) await app.rows('update files set crc32 = null where id = ?', [row.id]);
    const res = await visitor(app, `/c/${id}/archive`);
    const read = await readWithYauzl(Buffer.from(await res.arrayBuffer()));
    expect(new Map(read.map((entry) => [entry.name, entry.sha256]))).toEqual(expectedEntries());
    const kept = await app.rows(
      'select f.crc32 from files f join collection_files c on c.file_id = f.id where c.collection_id = ? and f.crc32 is null',
      [id],
    );
    expect(kept).toEqual([]);
  });

  test('when the link is unknown or has expired, then 404 and 410; another method is 405', async ({ app, alice }) => {
    expect((await visitor(app, '/c/AAAAAAAAAAAAAAAAAAAAAA/archive')).status).toBe(404);
    const { id } = await collectionOf(alice);
    await app.rows('update collections set expires_at = ? where id = ?', [new Date(Date.now() - 1000), id]);
    expect((await visitor(app, `/c/${id}/archive`)).status).toBe(410);
    expect((await fetch(`${app.url}/c/${id}/archive`, { method: 'POST' })).status).toBe(405);
  });

  test('when a collection holds 1,000 files, then its archive opens with yauzl and unzip -t, every file byte-identical', {
    timeout: 180_000,
  }, async ({ app, alice }) => {
    const contents = Array.from({ length: 1_000 }, (_, i) => Buffer.from(`file ${i}\n`.repeat((i % 7) + 1)));
    const files: Array<{ id: string; path: string }> = [];
    // A few at a time, as a client uploading a folder would.
    for (let start = 0; start < contents.length; start += 8) {
      const batch = contents.slice(start, start + 8);
      const uploaded = await Promise.all(batch.map((content, i) => alice.upload(content, `f${start + i}.txt`)));
      for (const [i, { file }] of uploaded.entries())
        files.push({ id: file.id, path: `folder${(start + i) % 10}/f${start + i}.txt` });
    }
    const res = await alice.fetch('/api/v1/collections', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ files }),
    });
    expect(res.status).toBe(201);
    const { collection } = (await res.json()) as { collection: { id: string; fileCount: number } };
    expect(collection.fileCount).toBe(1_000);
    const archive = Buffer.from(await (await visitor(app, `/c/${collection.id}/archive`)).arrayBuffer());
    const expected = new Map(files.map((file, i) => [file.path, sha256(contents[i])]));
    const read = await readWithYauzl(archive);
    expect(new Map(read.map((entry) => [entry.name, entry.sha256]))).toEqual(expected);
    expect(await checkWithUnzip(archive, await mkdtemp(join(tmpdir(), 'archive-')))).toEqual(expected);
  });

  test('when a file without its CRC-32 holds other bytes than its record says, then the archive is refused, never sent corrupt', async ({
    app,
    alice,
  }) => {
    const { id } = await collectionOf(alice);
    const [row] = await app.rows(
      'select f.id from files f join collection_files c on c.file_id = f.id where c.collection_id = ? and c.position = 1',
      [id],
    );
    await app.rows('update files set crc32 = null, size = size + 1 where id = ?', [row.id]);
    allowErrorLogs();
    const res = await visitor(app, `/c/${id}/archive`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).not.toBe('application/zip');
  });
});
