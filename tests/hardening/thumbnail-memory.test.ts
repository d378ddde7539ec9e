// The server's memory while it makes thumbnails (ADR 0041, ADR 0061), measured as the container
// runs it: the built server with SERVER_NODE_FLAGS and SERVER_ENV, its RSS read from /proc every
// 50 ms while six large images arrive at once. An upload of some hundred kilobytes may decode to
// hundreds of megabytes: libvips makes one thumbnail at a time, refuses from the header alone an
// image whose thumbnail would hold more than its budget, and glibc gives the memory back.
// Needs `npm run build` (dist/ and build/).
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { constants, crc32, createDeflate } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import {
  killAllSpawned,
  loginCookie,
  registerWithCli,
  requireDist,
  serverEnv,
  spawnServer,
  stopGracefully,
  type HardeningServerEnv,
  type SpawnedServer,
} from '../helpers/hardening-process';

const PASSWORD = 'pw-long-enough-1';
/** What the burst may take the server to (ADR 0061). */
const PEAK_LIMIT_MB = 250;
/** How far above its RSS before the burst the server may stay once it is over. */
const LEFT_AFTER_LIMIT_MB = 30;

let env: HardeningServerEnv;
let server: SpawnedServer;
let cookie: string;

interface Upload {
  name: string;
  type: string;
  bytes: Buffer;
}
let ordinary: Upload;
let burst: Upload[];

/** Adam7's passes: the first column and row of each, and its steps across and down. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/**
 * A black RGB PNG of `width` × `height` at 16 bits a sample. Every byte of its rows is zero (the
 * filter byte too), so hundreds of megabytes of pixels deflate to some hundreds of kilobytes.
 */
async function blackPng16(width: number, height: number, interlaced = false): Promise<Buffer> {
  const passes = interlaced ? ADAM7 : [[0, 0, 1, 1]];
  // Each row of each pass: its filter byte, then 6 bytes a pixel.
  let filtered = 0;
  for (const [firstColumn, firstRow, across, down] of passes) {
    filtered += Math.ceil((height - firstRow) / down) * (1 + Math.ceil((width - firstColumn) / across) * 6);
  }
  const zeros = Buffer.alloc(4 * 1024 * 1024);
  function* filteredRows() {
    for (let rest = filtered; rest > 0; rest -= zeros.length) yield zeros.subarray(0, Math.min(rest, zeros.length));
  }
  // Run-length matching deflates zeros as well as level 9 does, many times faster.
  const pixels = await buffer(Readable.from(filteredRows()).pipe(createDeflate({ strategy: constants.Z_RLE })));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 16; // bits a sample
  header[9] = 2; // RGB
  header[12] = interlaced ? 1 : 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const framed = Buffer.alloc(body.length + 8);
  framed.writeUInt32BE(data.length, 0);
  body.copy(framed, 4);
  framed.writeUInt32BE(crc32(body), body.length + 4);
  return framed;
}

async function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 40 } } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The images: made while the server starts. */
async function makeImages(): Promise<void> {
  const [huge, interlaced, large, photo, small] = await Promise.all([
    blackPng16(10_000, 10_000),
    blackPng16(5_000, 5_000, true),
    blackPng16(7_000, 7_000),
    jpeg(4_000, 3_000),
    jpeg(1_600, 1_200),
  ]);
  ordinary = { name: 'small.jpg', type: 'image/jpeg', bytes: small };
  burst = [
    // 100 MP at 16 bits: 600 MB decoded, ~100 MB held while libvips shrinks it row by row.
    { name: 'huge-1.png', type: 'image/png', bytes: huge },
    { name: 'huge-2.png', type: 'image/png', bytes: huge },
    // Interlaced: decoded whole, 150 MB, before it is shrunk.
    { name: 'interlaced.png', type: 'image/png', bytes: interlaced },
    // 49 MP at 16 bits: ~75 MB held, within the budget.
    { name: 'large-1.png', type: 'image/png', bytes: large },
    { name: 'large-2.png', type: 'image/png', bytes: large },
    // A 12 MP photo.
    { name: 'photo.jpg', type: 'image/jpeg', bytes: photo },
  ];
}

beforeAll(async () => {
  requireDist();
  const images = makeImages();
  env = await serverEnv(tempDir('fs-hardening-thumbnail-memory-'));
  const registered = await registerWithCli(env, 'u', PASSWORD);
  expect(registered.code, registered.stderr).toBe(0);
  server = await spawnServer(env);
  cookie = await loginCookie(server.url, 'u', PASSWORD);
  await images;
});

afterAll(async () => {
  if (server) await stopGracefully(server);
  killAllSpawned();
  if (env) fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
});

/** The server's resident memory in MB, as the kernel counts it. */
function rssMb(): number {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

async function upload(file: Upload): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([file.bytes as BlobPart], { type: file.type }), file.name);
  const res = await fetch(`${server.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie, origin: server.url },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

/** The answer for a thumbnail: a request for one being made waits for it (ADR 0041). */
async function thumbnail(fileId: string): Promise<{ status: number; type: string | null }> {
  const res = await fetch(`${server.url}/f/${fileId}/thumbnail`, { headers: { cookie } });
  await res.arrayBuffer();
  return { status: res.status, type: res.headers.get('content-type') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('memory while thumbnails are made', () => {
  it('when six large images are uploaded at once, then the server stays under 250 MB, comes back within 30 MB of where it was, and the images within the budget get their thumbnails', async () => {
    // One ordinary image first: libvips is loaded and the upload path has run once, as on a
    // server in use.
    expect(await thumbnail(await upload(ordinary))).toEqual({ status: 200, type: 'image/webp' });
    await sleep(1_000);
    const before = rssMb();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb());
    }, 50);
    let answers: Array<{ status: number; type: string | null }>;
    try {
      const ids = await Promise.all(burst.map(upload));
      answers = await Promise.all(ids.map(thumbnail));
    } finally {
      clearInterval(sampler);
    }
    await sleep(3_000);
    const after = rssMb();
    const figures = `RSS before ${before.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB`;

    expect(peak, figures).toBeLessThan(PEAK_LIMIT_MB);
    expect(after - before, figures).toBeLessThan(LEFT_AFTER_LIMIT_MB);
    // The two of 100 MP and the interlaced one are refused from their header: no thumbnail.
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 200, 200, 200]);
    for (const answer of answers.filter(({ status }) => status === 200)) expect(answer.type).toBe('image/webp');
  }, 120_000);
});
