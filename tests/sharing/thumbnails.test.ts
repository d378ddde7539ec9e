// Thumbnails of shared images at /f/<id>/thumbnail (ADR 0041): a WebP of at most 320 px, made
// after the upload has answered, under the same share controls as the raw link, and gone with
// the file.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { startApp, TestClock } from '../helpers/app';
import { describe, expect, registeredUser, test } from '../helpers/fixtures';
import { poll } from '../helpers/multipart';

const clock = new TestClock();
test.override('appOptions', { clock });

const PASSWORD = 'thumbnail secret';
/** How long a thumbnail may take to appear after its upload has answered. */
const MAKING_WAIT_MS = 15_000;

/** A plain image of `width` × `height` in `format`. */
function image(width: number, height: number, format: 'jpeg' | 'png' | 'gif'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}

/** A PNG whose 20000 × 20000 one-bit pixels (400 MP) deflate to some tens of kilobytes. */
function pixelBombPng(): Buffer {
  const side = 20_000;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const row = 1 + side / 8; // filter byte, then the pixels
  const pixels = deflateSync(Buffer.alloc(row * side), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** The thumbnail once it is there (the upload does not wait for it), or the last answer after the wait. */
async function thumbnailOnceMade(fetcher: Fetcher, fileId: string): Promise<Response> {
  let last: Response | undefined;
  await poll(async () => {
    last = await fetcher(`/f/${fileId}/thumbnail`);
    if (last.status === 200) return true;
    await last.arrayBuffer();
    return false;
  }, MAKING_WAIT_MS);
  return last as Response;
}

/** Every answer for the thumbnail within `ms`: a file that gets none answers 404 throughout. */
async function answersDuring(fetcher: Fetcher, fileId: string, ms: number): Promise<number[]> {
  const statuses: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const res = await fetcher(`/f/${fileId}/thumbnail`);
    await res.arrayBuffer();
    statuses.push(res.status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return statuses;
}

describe('thumbnails of images', () => {
  test('when a JPEG with EXIF orientation 6 is uploaded, then its thumbnail is a WebP no larger than 320 px, rotated', async ({
    alice,
  }) => {
    // Stored 640 × 320 (landscape); orientation 6 shows it turned a quarter, as a portrait.
    const jpeg = await sharp(await image(640, 320, 'jpeg'))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const { file } = await alice.upload(jpeg, 'photo.jpg', 'image/jpeg');
    const res = await thumbnailOnceMade(alice.fetch, file.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const thumbnail = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(thumbnail).metadata();
    expect(meta.format).toBe('webp');
    expect({ width: meta.width, height: meta.height }).toEqual({ width: 160, height: 320 });
    expect(meta.orientation ?? 1).toBe(1);
  });

  test('when a PNG, a GIF and an SVG are uploaded, then each gets a WebP thumbnail, the SVG as pixels', async ({
    alice,
  }) => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400"><rect width="800" height="400" fill="#2456d6"/></svg>';
    const uploads = [
      { content: await image(1000, 500, 'png'), name: 'wide.png', type: 'image/png', size: [320, 160] },
      { content: await image(100, 80, 'gif'), name: 'small.gif', type: 'image/gif', size: [100, 80] },
      { content: svg, name: 'drawing.svg', type: 'image/svg+xml', size: [320, 160] },
    ];
    for (const upload of uploads) {
      const { file } = await alice.upload(upload.content, upload.name, upload.type);
      const res = await thumbnailOnceMade(alice.fetch, file.id);
      expect(res.status, upload.name).toBe(200);
      expect(res.headers.get('content-type'), upload.name).toBe('image/webp');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(meta.format, upload.name).toBe('webp');
      expect([meta.width, meta.height], upload.name).toEqual(upload.size);
    }
  });

  test('when a text file is uploaded, then it has no thumbnail: 404', async ({ alice }) => {
    const { file } = await alice.upload('just words', 'notes.txt', 'text/plain');
    expect(new Set(await answersDuring(alice.fetch, file.id, 500))).toEqual(new Set([404]));
  });

  test('when a broken JPEG is uploaded, then it gets no thumbnail and its thumbnail link answers 404, never 500', async ({
    app,
    alice,
  }) => {
    const jpeg = await image(200, 200, 'jpeg');
    const broken = Buffer.concat([jpeg.subarray(0, 40), Buffer.alloc(400, 0x5a)]);
    const { file } = await alice.upload(broken, 'broken.jpg', 'image/jpeg');
    expect(new Set(await answersDuring(alice.fetch, file.id, 1500))).toEqual(new Set([404]));
    expect((await app.storedFiles()).filter((name) => name.startsWith(file.id))).toEqual([file.storedName]);
    // The file itself is still served as it was uploaded.
    expect((await alice.fetch(`/f/${file.id}/raw`)).status).toBe(200);
  });

  test('when a PNG claims 20000 × 20000 pixels in a small file, then it is refused: 404, and no thumbnail is kept', async ({
    app,
    alice,
  }) => {
    const bomb = pixelBombPng();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const { file } = await alice.upload(bomb, 'huge.png', 'image/png');
    expect(new Set(await answersDuring(alice.fetch, file.id, 1500))).toEqual(new Set([404]));
    expect((await app.storedFiles()).filter((name) => name.startsWith(file.id))).toEqual([file.storedName]);
  });
});

describe('who sees a thumbnail, and for how long', () => {
  test('when a link has no password, limit or expiry, then its thumbnail is cached publicly for a year, with an ETag that answers 304; HEAD gives its headers, other methods 405', async ({
    alice,
  }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'open.png', 'image/png');
    await thumbnailOnceMade(alice.fetch, file.id);
    const visitor = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie: '' } });
    expect(visitor.status).toBe(200);
    expect(visitor.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const tag = visitor.headers.get('etag');
    expect(tag).toMatch(/^"[^"]+"$/);
    await visitor.arrayBuffer();
    const again = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie: '', 'if-none-match': tag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(tag);
    const head = await alice.fetch(`/f/${file.id}/thumbnail`, { method: 'HEAD', headers: { cookie: '' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/webp');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    const post = await alice.fetch(`/f/${file.id}/thumbnail`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  test('when a link asks for a password, then its thumbnail is 401 without it, and private with it or for the owner', async ({
    alice,
  }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'secret.png', 'image/png', {
      password: PASSWORD,
    });
    const owner = await thumbnailOnceMade(alice.fetch, file.id);
    expect(owner.status).toBe(200);
    expect(owner.headers.get('cache-control')).toBe('private');

    const locked = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie: '' } });
    expect(locked.status).toBe(401);
    expect(locked.headers.get('content-type')).not.toBe('image/webp');
    expect(await locked.text()).toContain('password-protected');

    const wrong = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie: '', 'x-share-password': 'no' } });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();

    const opened = await alice.fetch(`/f/${file.id}/thumbnail`, {
      headers: { cookie: '', 'x-share-password': PASSWORD },
    });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('image/webp');
    expect(opened.headers.get('cache-control')).toBe('private');
  });

  test('when a link counts downloads, then only its owner sees the thumbnail, privately, and looking uses no download', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'counted.png', 'image/png', {
      maxDownloads: '1',
    });
    const owner = await thumbnailOnceMade(alice.fetch, file.id);
    expect(owner.status).toBe(200);
    expect(owner.headers.get('cache-control')).toBe('private');
    const visitor = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie: '' } });
    expect(visitor.status).toBe(404);
    await visitor.arrayBuffer();
    expect(await app.rows('select downloads from files where id = ?', [file.id])).toEqual([{ downloads: 0 }]);
  });

  test('when a link has expired, then its thumbnail answers 410 like the link', async ({ alice }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'soon.png', 'image/png', { expiresIn: '60' });
    const before = await thumbnailOnceMade(alice.fetch, file.id);
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('private');
    clock.advance(2 * 60_000);
    for (const cookie of [alice.cookie, '']) {
      const res = await alice.fetch(`/f/${file.id}/thumbnail`, { headers: { cookie } });
      expect(res.status).toBe(410);
      expect(res.headers.get('content-type')).not.toBe('image/webp');
      await res.arrayBuffer();
    }
  });

  test('when an image is deleted, then its thumbnail goes with it: the link answers 404 and nothing is left in storage', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'deleted.png', 'image/png');
    expect((await thumbnailOnceMade(alice.fetch, file.id)).status).toBe(200);
    expect((await app.storedFiles()).filter((name) => name.startsWith(file.id))).toHaveLength(2);
    expect((await alice.fetch(`/api/v1/files/${file.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await app.storedFiles()).filter((name) => name.startsWith(file.id))).toEqual([]);
    expect((await alice.fetch(`/f/${file.id}/thumbnail`)).status).toBe(404);
  });

  test('when an image stored before thumbnails existed is asked for its thumbnail, then it is made then and served', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(await image(400, 300, 'png'), 'older.png', 'image/png');
    expect((await thumbnailOnceMade(alice.fetch, file.id)).status).toBe(200);
    const thumbnailKey = (await app.storedFiles()).find((name) => name.startsWith(file.id) && name !== file.storedName);
    // As a file from before: its content, and no thumbnail.
    await app.removeStored(thumbnailKey!);
    const res = await alice.fetch(`/f/${file.id}/thumbnail`);
    expect(res.status).toBe(200);
    expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(320);
    expect(await app.storedFiles()).toContain(thumbnailKey);
  });

  test('when a delete stopped after the content, before its thumbnail, then the storage sweep at the next start removes the thumbnail', async () => {
    const first = await startApp();
    let firstOpen = true;
    let second: Awaited<ReturnType<typeof startApp>> | undefined;
    try {
      const carol = await registeredUser(first, 'carol');
      const { file } = await carol.upload(await image(400, 300, 'png'), 'half-deleted.png', 'image/png');
      expect((await thumbnailOnceMade(carol.fetch, file.id)).status).toBe(200);
      expect((await first.storedFiles()).filter((name) => name.startsWith(file.id))).toHaveLength(2);
      // The record and the content went; the process stopped before the thumbnail did.
      await first.rows('delete from files where id = ?', [file.id]);
      await first.removeStored(file.storedName);
      expect((await first.storedFiles()).filter((name) => name.startsWith(file.id))).toHaveLength(1);
      firstOpen = false;
      await first.close();

      // Two hours on: old enough for the sweep even where other instances may be writing.
      const later = new TestClock();
      later.advance(2 * 3600_000);
      second = await startApp(first.env, { clock: later });
      expect((await second.storedFiles()).filter((name) => name.startsWith(file.id))).toEqual([]);
    } finally {
      if (firstOpen) await first.close();
      await second?.close();
    }
  });
});
