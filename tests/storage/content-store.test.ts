// The content store contract, the same cases on the local disk and on an S3 bucket (s3rver):
// atomic streamed writes that leave nothing behind when they fail, byte ranges, a clear
// ContentNotFoundError, listing for the sweep, and a write probe.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { createContentStore } from '../../server/deps';
import { createLogger } from '../../server/utilities/logger';
import {
  ContentNotFoundError,
  ContentTooLargeError,
  StorageUnavailableError,
  type ContentStore,
} from '../../server/storage/content-store';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { freshBucketEnv } from '../helpers/buckets';

/** A store on a fresh folder or bucket; `log` receives what it logs (silent by default). */
async function storeOn(kind: 'disk' | 's3', log = createLogger('silent')): Promise<ContentStore> {
  const env = kind === 's3' ? await freshBucketEnv() : {};
  return createContentStore(provision(loadConfig({ DATA_DIR: tempDir(), SESSION_SECRET: TEST_SECRET, ...env })), log);
}

/** `size` bytes of a repeating pattern, produced in 1 MiB pieces (never whole in memory). */
function patterned(size: number, chunk = 1024 * 1024): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const piece = Buffer.alloc(Math.min(chunk, size - sent));
      for (let i = 0; i < piece.length; i++) piece[i] = (sent + i) % 251;
      sent += piece.length;
      this.push(piece);
    },
  });
}

/** The first 4 KiB of `patterned(size)`: what a write reports of its start (a file's type is read from it). */
function firstBytesOfPattern(size: number): Buffer {
  return Buffer.from(Array.from({ length: Math.min(size, 4096) }, (_, i) => i % 251));
}

/** The CRC-32 of a stream's bytes, with zlib's own function. */
async function crcOf(stream: Readable): Promise<number> {
  let crc = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) crc = crc32(chunk, crc);
  return crc;
}

async function digest(stream: Readable): Promise<{ sha: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha: hash.digest('hex'), size };
}

async function text(store: ContentStore, key: string, range?: { start: number; end: number }): Promise<string> {
  const opened = await store.open(key, range);
  const chunks: Buffer[] = [];
  for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe.each(['disk', 's3'] as const)('the %s content store', (kind) => {
  it('when content is written, then it reads back whole and by byte range, and stat gives its size', async () => {
    const store = await storeOn(kind);
    expect(
      await store.write('AAAAAAAAAAAAAAAAAAAAAA.txt', Readable.from([Buffer.from('hello, '), Buffer.from('world')]), {
        maxBytes: 100,
      }),
    ).toEqual({ size: 12, crc32: crc32(Buffer.from('hello, world')), firstBytes: Buffer.from('hello, world') });
    expect(await text(store, 'AAAAAAAAAAAAAAAAAAAAAA.txt')).toBe('hello, world');
    expect(await text(store, 'AAAAAAAAAAAAAAAAAAAAAA.txt', { start: 7, end: 11 })).toBe('world');
    expect(await store.stat('AAAAAAAAAAAAAAAAAAAAAA.txt')).toEqual({ size: 12, modifiedAt: expect.any(Date) });
  });

  it('when content is written, then the write reports its CRC-32 (the standard check value for "123456789", 0 for nothing) and its first bytes', async () => {
    const store = await storeOn(kind);
    expect(
      await store.write('CCCCCCCCCCCCCCCCCCCCCC', Readable.from([Buffer.from('1234'), Buffer.from('56789')]), {
        maxBytes: 9,
      }),
    ).toEqual({ size: 9, crc32: 0xcbf43926, firstBytes: Buffer.from('123456789') });
    expect(await store.write('CCCCCCCCCCCCCCCCCCCCC0', Readable.from([]), { maxBytes: 9 })).toEqual({
      size: 0,
      crc32: 0,
      firstBytes: Buffer.alloc(0),
    });
  });

  it('when 40 MiB stream in (several parts on S3), then they read back byte-exact', { timeout: 60_000 }, async () => {
    const store = await storeOn(kind);
    const size = 40 * 1024 * 1024;
    expect(await store.write('BBBBBBBBBBBBBBBBBBBBBB', patterned(size), { maxBytes: size })).toEqual({
      size,
      crc32: await crcOf(patterned(size)),
      firstBytes: firstBytesOfPattern(size),
    });
    const expected = await digest(patterned(size));
    expect(await digest((await store.open('BBBBBBBBBBBBBBBBBBBBBB')).stream)).toEqual(expected);
  });

  it('when content is empty, exactly one 8 MiB part, or one byte more, then each reads back byte-exact with its size', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    for (const [key, size] of [
      ['HHHHHHHHHHHHHHHHHHHHH0', 0],
      ['HHHHHHHHHHHHHHHHHHHHH1', 8 * 1024 * 1024],
      ['HHHHHHHHHHHHHHHHHHHHH2', 8 * 1024 * 1024 + 1],
    ] as const) {
      expect(await store.write(key, patterned(size, 100_000), { maxBytes: size })).toEqual({
        size,
        crc32: await crcOf(patterned(size)),
        firstBytes: firstBytesOfPattern(size),
      });
      expect(await store.stat(key)).toEqual({ size, modifiedAt: expect.any(Date) });
      expect(await digest((await store.open(key)).stream)).toEqual(await digest(patterned(size)));
    }
  });

  it('when more than maxBytes arrive, then the write fails with ContentTooLargeError and nothing is stored', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    await expect(
      store.write('CCCCCCCCCCCCCCCCCCCCCC', patterned(20 * 1024 * 1024), { maxBytes: 12 * 1024 * 1024 }),
    ).rejects.toBeInstanceOf(ContentTooLargeError);
    expect(await store.stat('CCCCCCCCCCCCCCCCCCCCCC')).toBeNull();
    expect(await store.list({ modifiedBefore: new Date(Date.now() + 60_000) })).toEqual([]);
  });

  it('when the content stream fails half-way (a client gone), then the write rejects with that error and nothing is stored', {
    timeout: 60_000,
  }, async () => {
    const store = await storeOn(kind);
    const broken = patterned(30 * 1024 * 1024);
    let sent = 0;
    broken.on('data', (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > 10 * 1024 * 1024) broken.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
    await expect(store.write('DDDDDDDDDDDDDDDDDDDDDD', broken, { maxBytes: 100 * 1024 * 1024 })).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    expect(await store.stat('DDDDDDDDDDDDDDDDDDDDDD')).toBeNull();
  });

  it('when content is missing, then open rejects with ContentNotFoundError and stat is null; a delete of it is no error', async () => {
    const store = await storeOn(kind);
    await expect(store.open('EEEEEEEEEEEEEEEEEEEEEE')).rejects.toBeInstanceOf(ContentNotFoundError);
    expect(await store.stat('EEEEEEEEEEEEEEEEEEEEEE')).toBeNull();
    await expect(store.delete('EEEEEEEEEEEEEEEEEEEEEE')).resolves.toBeUndefined();
  });

  it('when content is deleted, then it is gone; list only names content written before the cutoff', async () => {
    const store = await storeOn(kind);
    await store.write('FFFFFFFFFFFFFFFFFFFFFF.bin', Readable.from([Buffer.from('x')]), { maxBytes: 10 });
    await store.write('GGGGGGGGGGGGGGGGGGGGGG.bin', Readable.from([Buffer.from('y')]), { maxBytes: 10 });
    expect((await store.list({ modifiedBefore: new Date(Date.now() + 60_000) })).sort()).toEqual([
      'FFFFFFFFFFFFFFFFFFFFFF.bin',
      'GGGGGGGGGGGGGGGGGGGGGG.bin',
    ]);
    expect(await store.list({ modifiedBefore: new Date(Date.now() - 60 * 60_000) })).toEqual([]);
    await store.delete('FFFFFFFFFFFFFFFFFFFFFF.bin');
    expect(await store.list({ modifiedBefore: new Date(Date.now() + 60_000) })).toEqual(['GGGGGGGGGGGGGGGGGGGGGG.bin']);
    await expect(store.open('FFFFFFFFFFFFFFFFFFFFFF.bin')).rejects.toBeInstanceOf(ContentNotFoundError);
  });

  it('when the store takes writes, then checkWritable resolves and leaves nothing listed', async () => {
    const store = await storeOn(kind);
    await store.checkWritable();
    expect(await store.list({ modifiedBefore: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await store.sweepIncomplete({ modifiedBefore: new Date() })).toBe(0);
  });
});

/**
 * An S3 endpoint in front of the run's s3rver that refuses the second part of any multipart
 * upload (a bucket that fails half-way) and notes every request it sees.
 */
async function bucketRefusingPartTwo(): Promise<{
  env: Record<string, string>;
  seen: string[];
  close: () => Promise<void>;
}> {
  const env = await freshBucketEnv();
  const upstream = new URL(env.S3_ENDPOINT);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://bucket');
    seen.push(
      `${req.method} ${url.searchParams.has('partNumber') ? `part ${url.searchParams.get('partNumber')}` : url.searchParams.has('uploadId') ? 'uploadId' : url.search}`,
    );
    if (url.searchParams.get('partNumber') === '2') {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/xml' });
      return void res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidRequest</Code><Message>refused</Message></Error>',
      );
    }
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: { ...env, S3_ENDPOINT: `http://127.0.0.1:${port}` },
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('what the S3 store says', () => {
  it('when the bucket refuses a part half-way, then the write fails with StorageUnavailableError, stops reading, aborts the multipart upload and leaves no object', {
    timeout: 60_000,
  }, async () => {
    const bucket = await bucketRefusingPartTwo();
    try {
      const store = await createContentStore(
        provision(loadConfig({ DATA_DIR: tempDir(), SESSION_SECRET: TEST_SECRET, ...bucket.env })),
        createLogger('silent'),
      );
      const size = 64 * 1024 * 1024;
      const content = patterned(size);
      let read = 0;
      content.on('data', (chunk: Buffer) => {
        read += chunk.length;
      });
      await expect(store.write('IIIIIIIIIIIIIIIIIIIIII', content, { maxBytes: size })).rejects.toBeInstanceOf(
        StorageUnavailableError,
      );
      expect(content.destroyed).toBe(true);
      expect(read).toBeLessThan(size);
      expect(bucket.seen).toContain('DELETE uploadId');
      expect(await store.stat('IIIIIIIIIIIIIIIIIIIIII')).toBeNull();
    } finally {
      await bucket.close();
    }
  });

  it('when it probes the bucket, stores empty content and asks for missing content, then the SDK prints nothing on the console and nothing is logged at warn or above', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const printed = vi.spyOn(console, 'warn');
    try {
      const store = await storeOn('s3', log);
      await store.checkWritable();
      await store.write('EEEEEEEEEEEEEEEEEEEEEE.txt', Readable.from([]), { maxBytes: 10 });
      expect((await store.stat('EEEEEEEEEEEEEEEEEEEEEE.txt'))?.size).toBe(0);
      // Expected misses are the caller's to report: the SDK would log each at error, with a stack.
      expect(await store.stat('MMMMMMMMMMMMMMMMMMMMMM.txt')).toBeNull();
      await expect(store.open('MMMMMMMMMMMMMMMMMMMMMM.txt')).rejects.toBeInstanceOf(ContentNotFoundError);
    } finally {
      printed.mockRestore();
    }
    expect(printed).not.toHaveBeenCalled();
    expect(lines.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 40)).toEqual([]);
  });
});
