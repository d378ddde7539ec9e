// "Download all" archives (ADR 0036): a ZIP laid out before its first byte, streamed in any byte
// range, opened by yauzl and by Info-ZIP's unzip, each entry byte-identical to its file.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contentCrc32 } from '../../server/archive/content-crc32';
import { checkWithUnzip, collect, type OpenZipEntry, readWithYauzl, sha256, zipStream } from '../helpers/zip-archives';
import { planZip, ZipContentLengthError, type ZipPlan } from '../../server/archive/zip-plan';

const run = promisify(execFile);

interface TestFile {
  name: string;
  content: Buffer;
  modifiedAt: Date;
}

/** Deterministic content: entry `seed`'s bytes, different from every other entry's. */
function contentOf(seed: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let state = (seed * 2654435761 + 1) >>> 0;
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

function planOf(files: readonly TestFile[]): ZipPlan {
  return planZip(
    files.map((file) => ({
      name: file.name,
      size: file.content.length,
      crc32: crc32(file.content),
      modifiedAt: file.modifiedAt,
    })),
  );
}

/** Serves each file's asked range in 16 KiB chunks, as a ranged read of the store would; notes every call. */
function openerOf(files: readonly TestFile[], calls: Array<[number, number, number]> = []): OpenZipEntry {
  return async (index, start, end) => {
    calls.push([index, start, end]);
    const range = files[index].content.subarray(start, end + 1);
    const chunks: Buffer[] = [];
    for (let at = 0; at < range.length; at += 16 * 1024) chunks.push(range.subarray(at, at + 16 * 1024));
    return Readable.from(chunks, { objectMode: false });
  };
}

async function archiveOf(files: readonly TestFile[]): Promise<{ plan: ZipPlan; bytes: Buffer }> {
  const plan = planOf(files);
  return { plan, bytes: await collect(zipStream(plan, null, openerOf(files))) };
}

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'zip-archive-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const UPLOADED = new Date('2026-03-14T15:09:26.535Z');

const FILES: TestFile[] = [
  { name: 'readme.txt', content: Buffer.from('Collections: many files behind one link.\n'), modifiedAt: UPLOADED },
  { name: 'empty.txt', content: Buffer.alloc(0), modifiedAt: new Date('2025-01-01T00:00:00Z') },
  { name: 'photos/2026/beach.jpg', content: contentOf(1, 300_000), modifiedAt: new Date('2026-07-01T23:59:59Z') },
  { name: 'photos/2026/résumé 📄.pdf', content: contentOf(2, 70_001), modifiedAt: UPLOADED },
  { name: '报告/季度.docx', content: contentOf(3, 5), modifiedAt: UPLOADED },
  { name: 'zeros.bin', content: Buffer.alloc(40_000), modifiedAt: UPLOADED },
];

describe('a streamed archive', () => {
  it('when it is streamed whole, then its length is the planned size and yauzl reads every entry byte for byte', async () => {
    const { plan, bytes } = await archiveOf(FILES);
    expect(bytes.length).toBe(plan.size);
    const entries = await readWithYauzl(bytes);
    expect(entries.map((entry) => entry.name)).toEqual(FILES.map((file) => file.name));
    for (const [i, entry] of entries.entries()) {
      expect(entry.sha256).toBe(sha256(FILES[i].content));
      expect(entry.size).toBe(FILES[i].content.length);
      expect(entry.crc32).toBe(crc32(FILES[i].content));
      // UTF-8 names (bit 11), no data descriptor (bit 3): the local headers carry CRC and sizes.
      expect(entry.flags).toBe(0x0800);
      // The extended timestamp gives the upload time to the second, the DOS fields to two seconds (UTC).
      expect(entry.modifiedAt.getTime()).toBe(Math.floor(FILES[i].modifiedAt.getTime() / 1000) * 1000);
      expect(FILES[i].modifiedAt.getTime() - entry.dosModifiedAt.getTime()).toBeGreaterThanOrEqual(0);
      expect(FILES[i].modifiedAt.getTime() - entry.dosModifiedAt.getTime()).toBeLessThan(2000);
    }
  });

  it('when unzip tests and extracts it, then there is no error and every file is byte-identical, UTF-8 names included', async () => {
    const { bytes } = await archiveOf(FILES);
    const extracted = await checkWithUnzip(bytes, folder);
    expect([...extracted.keys()]).toEqual(FILES.map((file) => file.name));
    for (const file of FILES) expect(extracted.get(file.name)).toBe(sha256(file.content));
  });

  it('when the same files are planned twice, then the archives are identical to the byte', async () => {
    const first = await archiveOf(FILES);
    const second = await archiveOf(FILES.map((file) => ({ ...file, content: Buffer.from(file.content) })));
    expect(second.plan.size).toBe(first.plan.size);
    expect(sha256(second.bytes)).toBe(sha256(first.bytes));
  });

  it('when there are no files, then the archive is an empty ZIP that unzip and yauzl accept', async () => {
    const { plan, bytes } = await archiveOf([]);
    expect(plan.size).toBe(22);
    expect(await readWithYauzl(bytes)).toEqual([]);
    const file = join(folder, 'empty.zip');
    await writeFile(file, bytes);
    // unzip says "zipfile is empty" and exits 1 for an archive without entries.
    await expect(run('unzip', ['-t', file])).rejects.toMatchObject({ stdout: expect.stringContaining('empty') });
  });

  it('when there are 1,000 files, then yauzl and unzip open the archive and every file is byte-identical', async () => {
    const files: TestFile[] = Array.from({ length: 1000 }, (_, i) => ({
      name: `folder ${i % 7}/file ${String(i).padStart(4, '0')}.bin`,
      content: contentOf(1000 + i, (i * 997) % 5000),
      modifiedAt: new Date(UPLOADED.getTime() + i * 60_000),
    }));
    const { plan, bytes } = await archiveOf(files);
    expect(bytes.length).toBe(plan.size);
    const entries = await readWithYauzl(bytes);
    expect(entries).toHaveLength(1000);
    for (const [i, entry] of entries.entries()) {
      expect(entry.name).toBe(files[i].name);
      expect(entry.sha256).toBe(sha256(files[i].content));
    }
    const extracted = await checkWithUnzip(bytes, folder);
    expect(extracted.size).toBe(1000);
    for (const file of files) expect(extracted.get(file.name)).toBe(sha256(file.content));
  });

  it('when a name is not a normalised archive path, then planning refuses it', () => {
    const entry = { size: 0, crc32: 0, modifiedAt: UPLOADED };
    expect(() => planZip([{ ...entry, name: '../escape.txt' }])).toThrow(TypeError);
    expect(() => planZip([{ ...entry, name: 'a\\b.txt' }])).toThrow(TypeError);
    expect(() => planZip([{ ...entry, name: 'ok.txt', size: -1 }])).toThrow(TypeError);
    expect(() => planZip([{ ...entry, name: 'ok.txt', crc32: 2 ** 32 }])).toThrow(TypeError);
  });
});

describe('byte ranges of an archive', () => {
  it('when it is read as bytes 0..N-1 and then N..end, then the two parts make the whole archive', async () => {
    const { plan, bytes } = await archiveOf(FILES);
    const content = plan.contentRange(2);
    const splits = [
      1,
      29,
      30,
      content.offset,
      content.offset + 1,
      content.offset + 12_345,
      plan.size - 22,
      plan.size - 1,
    ];
    for (const n of splits) {
      const head = await collect(zipStream(plan, { start: 0, end: n - 1 }, openerOf(FILES)));
      const tail = await collect(zipStream(plan, { start: n, end: plan.size - 1 }, openerOf(FILES)));
      expect(head.length).toBe(n);
      expect(sha256(Buffer.concat([head, tail]))).toBe(sha256(bytes));
    }
  });

  it('when every byte range of a small archive is read, then each is that slice of the whole', async () => {
    const files = FILES.map((file, i) => ({ ...file, content: contentOf(i, i * 3) }));
    const { plan, bytes } = await archiveOf(files);
    for (let start = 0; start < plan.size; start += 7)
      for (let end = start; end < plan.size; end += 13) {
        const part = await collect(zipStream(plan, { start, end }, openerOf(files)));
        expect(part.equals(bytes.subarray(start, end + 1))).toBe(true);
      }
  });

  it('when the range lies inside one entry’s content, then only that part of that entry is opened', async () => {
    const { plan, bytes } = await archiveOf(FILES);
    const content = plan.contentRange(2);
    const calls: Array<[number, number, number]> = [];
    const start = content.offset + 1000;
    const end = content.offset + 250_000;
    const part = await collect(zipStream(plan, { start, end }, openerOf(FILES, calls)));
    expect(part.equals(bytes.subarray(start, end + 1))).toBe(true);
    expect(calls).toEqual([[2, 1000, 250_000]]);
  });

  it('when the range covers only headers and the central directory, then no entry is opened', async () => {
    const { plan, bytes } = await archiveOf(FILES);
    const calls: Array<[number, number, number]> = [];
    const firstContent = plan.contentRange(0).offset;
    const header = await collect(zipStream(plan, { start: 0, end: firstContent - 1 }, openerOf(FILES, calls)));
    expect(header.equals(bytes.subarray(0, firstContent))).toBe(true);
    const last = plan.contentRange(FILES.length - 1);
    const directory = last.offset + last.size;
    const tail = await collect(zipStream(plan, { start: directory, end: plan.size - 1 }, openerOf(FILES, calls)));
    expect(tail.equals(bytes.subarray(directory))).toBe(true);
    expect(calls).toEqual([]);
  });

  it('when a range spans entries, then each entry is opened once, for the part the range covers', async () => {
    const { plan } = await archiveOf(FILES);
    const calls: Array<[number, number, number]> = [];
    const start = plan.contentRange(2).offset + 299_990;
    const end = plan.contentRange(4).offset + 2;
    await collect(zipStream(plan, { start, end }, openerOf(FILES, calls)));
    expect(calls).toEqual([
      [2, 299_990, 299_999],
      [3, 0, 70_000],
      [4, 0, 2],
    ]);
  });

  it('when the range is outside the archive, then sending it is refused before a byte is sent', async () => {
    const { plan } = await archiveOf(FILES);
    for (const range of [
      { start: 0, end: plan.size },
      { start: 10, end: 9 },
    ]) {
      const sent: Buffer[] = [];
      const output = zipStream(plan, range, openerOf(FILES)).on('data', (chunk: Buffer) => sent.push(chunk));
      await expect(collect(output)).rejects.toThrow(RangeError);
      expect(sent).toEqual([]);
    }
  });
});

describe('entry content that is not what the plan says', () => {
  it('when an entry’s stream is shorter than planned, then the archive stream fails', async () => {
    const plan = planOf(FILES);
    const open: OpenZipEntry = async (index, start, end) =>
      Readable.from([FILES[index].content.subarray(start, index === 2 ? end : end + 1)], { objectMode: false });
    const failure = collect(zipStream(plan, null, open));
    await expect(failure).rejects.toThrow(ZipContentLengthError);
    await expect(failure).rejects.toThrow('entry 2 ended 1 bytes early');
  });

  it('when an entry’s stream is longer than planned, then the archive stream fails', async () => {
    const plan = planOf(FILES);
    const open: OpenZipEntry = async (index, start, end) =>
      Readable.from([FILES[index].content.subarray(start, end + 1), ...(index === 3 ? [Buffer.from('x')] : [])], {
        objectMode: false,
      });
    await expect(collect(zipStream(plan, null, open))).rejects.toThrow('entry 3 is longer than planned');
  });

  it('when opening an entry or reading it fails, then the archive stream fails with that error', async () => {
    const plan = planOf(FILES);
    const refused: OpenZipEntry = async () => {
      throw new Error('content not found');
    };
    await expect(collect(zipStream(plan, null, refused))).rejects.toThrow('content not found');
    const broken: OpenZipEntry = async () =>
      new Readable({
        read() {
          this.destroy(new Error('connection reset'));
        },
      });
    await expect(collect(zipStream(plan, null, broken))).rejects.toThrow('connection reset');
  });
});

/** A store read that generates `size` bytes in 64 KiB chunks on demand, noting how far it got. */
function generatedContent(size: number, progress: { read: number; destroyed: boolean }): Readable {
  let left = size;
  return new Readable({
    highWaterMark: 64 * 1024,
    read() {
      if (left === 0) {
        this.push(null);
        return;
      }
      const length = Math.min(left, 64 * 1024);
      left -= length;
      progress.read += length;
      this.push(Buffer.alloc(length, 7));
    },
    destroy(error, callback) {
      progress.destroyed = true;
      callback(error);
    },
  });
}

describe('streaming', () => {
  const BIG = 64 * 1024 * 1024;
  const bigPlan = () =>
    planZip([{ name: 'big.bin', size: BIG, crc32: crc32(Buffer.alloc(BIG, 7)), modifiedAt: UPLOADED }]);

  it('when the output is not read, then the entry is read no further than a chunk or two ahead', async () => {
    const progress = { read: 0, destroyed: false };
    const output = zipStream(bigPlan(), null, async (_index, start, end) =>
      generatedContent(end - start + 1, progress),
    );
    output.pause();
    output.read(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(progress.read).toBeGreaterThan(0);
    expect(progress.read).toBeLessThanOrEqual(4 * 64 * 1024);
    output.destroy();
  });

  it('when the output is destroyed (the client went away), then the entry stream is destroyed too', async () => {
    const progress = { read: 0, destroyed: false };
    const output = zipStream(bigPlan(), null, async (_index, start, end) =>
      generatedContent(end - start + 1, progress),
    );
    const first = await new Promise<Buffer>((resolve) => output.once('data', resolve));
    expect(first.length).toBeGreaterThan(0);
    output.destroy();
    await new Promise((resolve) => output.once('close', resolve));
    await vi.waitFor(() => expect(progress.destroyed).toBe(true), { timeout: 2_000 });
    expect(progress.read).toBeLessThan(BIG);
  });

  it('when 1,000 entries of ~200 MB in all are streamed, then the process memory grows far less than the content', async () => {
    const sizes = Array.from({ length: 1000 }, (_, i) => 150_000 + ((i * 7919) % 100_000));
    const total = sizes.reduce((sum, size) => sum + size, 0);
    expect(total).toBeGreaterThan(190_000_000);
    const plan = planZip(
      sizes.map((size, i) => ({
        name: `memory/${i}.bin`,
        size,
        crc32: crc32(Buffer.alloc(size, 7)),
        modifiedAt: UPLOADED,
      })),
    );
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const hash = createHash('sha256');
    let length = 0;
    try {
      for await (const chunk of zipStream(plan, null, async (_index, start, end) =>
        generatedContent(end - start + 1, { read: 0, destroyed: false }),
      )) {
        hash.update(chunk);
        length += chunk.length;
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    } finally {
      clearInterval(sampler);
    }
    expect(length).toBe(plan.size);
    // Each chunk is garbage once hashed: the growth is chunks not yet collected (about 40 MB), the
    // same for 2 GiB; holding the content would take more than its 200 MB.
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
  });
});

describe('contentCrc32', () => {
  it('when content is read in chunks, then its CRC-32 and length are those of the whole', async () => {
    const content = contentOf(9, 1_000_003);
    const chunks: Buffer[] = [];
    for (let at = 0; at < content.length; at += 65_536) chunks.push(content.subarray(at, at + 65_536));
    expect(await contentCrc32(Readable.from(chunks))).toEqual({ crc32: crc32(content), size: content.length });
    expect(await contentCrc32(Readable.from([]))).toEqual({ crc32: 0, size: 0 });
    // The check value of CRC-32 (ISO-HDLC), as ZIP uses it.
    expect(await contentCrc32(Readable.from([Buffer.from('123456789')]))).toEqual({ crc32: 0xcbf43926, size: 9 });
  });
});
