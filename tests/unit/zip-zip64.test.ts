// ZIP64 archives (ADR 0036): more than 65,535 entries, an entry larger than 4 GiB, and entries
// that start past 4 GiB. The large content is generated as it is read, never stored.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { planZip, type ZipPlan } from '../../server/archive/zip-plan';
import { type OpenZipEntry, zipStream } from '../helpers/zip-archives';

const run = promisify(execFile);
const UPLOADED = new Date('2026-03-14T15:09:26Z');
const GiB = 1024 * 1024 * 1024;

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'zip-zip64-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function collect(stream: Readable): Promise<Buffer> {
  return Buffer.concat(await stream.toArray());
}

/** Writes the archive's bytes to a file, asking zipStream only for `ranges`; the rest stays a hole. */
async function writeArchive(plan: ZipPlan, ranges: Array<{ start: number; end: number }>, openEntry: OpenZipEntry) {
  const file = join(folder, 'archive.zip');
  const handle = await open(file, 'w');
  try {
    for (const range of ranges) {
      let at = range.start;
      for await (const chunk of zipStream(plan, range, openEntry)) {
        await handle.write(chunk, 0, chunk.length, at);
        at += chunk.length;
      }
      expect(at).toBe(range.end + 1);
    }
    await handle.truncate(plan.size);
  } finally {
    await handle.close();
  }
  return file;
}

/** A 1 MiB block of pseudo-random bytes; large content is this block, repeated from an offset. */
const BLOCK = (() => {
  const block = Buffer.alloc(1024 * 1024);
  let state = 12345;
  for (let i = 0; i < block.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    block[i] = state >>> 24;
  }
  return block;
})();

/** Bytes [start, end] of the generated content, in fresh 64 KiB chunks as a store read gives them. */
function generated(start: number, end: number): Readable {
  let at = start;
  return new Readable({
    highWaterMark: 64 * 1024,
    read() {
      if (at > end) {
        this.push(null);
        return;
      }
      const offset = at % BLOCK.length;
      const length = Math.min(64 * 1024, end + 1 - at, BLOCK.length - offset);
      at += length;
      this.push(Buffer.from(BLOCK.subarray(offset, offset + length)));
    },
  });
}

function generatedCrc32(size: number): number {
  let value = 0;
  for (let at = 0; at < size; at += BLOCK.length)
    value = crc32(BLOCK.subarray(0, Math.min(BLOCK.length, size - at)), value);
  return value;
}

/** yauzl reading the archive through ranged reads of zipStream: nothing of it is stored. */
class ArchiveRanges extends yauzl.RandomAccessReader {
  readonly reads: Array<[number, number]> = [];

  constructor(
    private readonly plan: ZipPlan,
    private readonly openEntry: OpenZipEntry,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    this.reads.push([start, end]);
    // yauzl's end is exclusive, zipStream's inclusive.
    return zipStream(this.plan, { start, end: end - 1 }, this.openEntry);
  }
}

describe('ZIP64 archives', () => {
  it('when there are more than 65,535 entries, then yauzl and unzip open the archive and read every entry', async () => {
    const count = 70_000;
    const contentOf = (i: number) => Buffer.from(i % 3 === 0 ? '' : `${i}`);
    const plan = planZip(
      Array.from({ length: count }, (_, i) => {
        const content = contentOf(i);
        return { name: `many/${i}.txt`, size: content.length, crc32: crc32(content), modifiedAt: UPLOADED };
      }),
    );
    const openEntry: OpenZipEntry = async (index, start, end) =>
      Readable.from([contentOf(index).subarray(start, end + 1)], { objectMode: false });
    const bytes = await collect(zipStream(plan, null, openEntry));
    expect(bytes.length).toBe(plan.size);

    const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, strictFileNames: true });
    expect(zip.entryCount).toBe(count);
    let index = 0;
    for await (const entry of zip.eachEntry()) {
      expect(entry.fileName).toBe(`many/${index}.txt`);
      if (index % 997 === 0 || index >= count - 3) {
        const content = await collect(await zip.openReadStreamPromise(entry));
        expect(content.equals(contentOf(index))).toBe(true);
      }
      index++;
    }
    expect(index).toBe(count);

    const file = join(folder, 'many.zip');
    await writeFile(file, bytes);
    const { stdout: tested } = await run('unzip', ['-t', file], { maxBuffer: 64 * 1024 * 1024 });
    expect(tested).toContain('No errors detected in compressed data');
    expect(tested.match(/ {4}testing: /g)).toHaveLength(count);
  }, 120_000);

  describe('when an entry is larger than 4 GiB', () => {
    const BIG = 4 * GiB + 12_345;
    const before = Buffer.from('the entry before the large one\n');
    const after = Buffer.from('the entry after the large one, past 4 GiB\n');

    function planWith(bigCrc32: number): ZipPlan {
      return planZip([
        { name: 'before.txt', size: before.length, crc32: crc32(before), modifiedAt: UPLOADED },
        { name: 'large/disk image.bin', size: BIG, crc32: bigCrc32, modifiedAt: UPLOADED },
        { name: 'after.txt', size: after.length, crc32: crc32(after), modifiedAt: UPLOADED },
      ]);
    }

    it('then yauzl, reading only byte ranges of the stream, finds its sizes in ZIP64 fields, its bytes intact and the next entry past 4 GiB', async () => {
      const plan = planWith(generatedCrc32(BIG));
      const opened: Array<[number, number, number]> = [];
      const openEntry: OpenZipEntry = async (index, start, end) => {
        opened.push([index, start, end]);
        if (index === 1) return generated(start, end);
        return Readable.from([(index === 0 ? before : after).subarray(start, end + 1)], { objectMode: false });
      };
      const reader = new ArchiveRanges(plan, openEntry);
      const zip = await yauzl.fromRandomAccessReaderPromise(reader, plan.size, { lazyEntries: true, autoClose: false });
      const entries = [];
      for await (const entry of zip.eachEntry()) entries.push(entry);
      expect(entries.map((entry) => [entry.fileName, entry.uncompressedSize, entry.compressedSize])).toEqual([
        ['before.txt', before.length, before.length],
        ['large/disk image.bin', BIG, BIG],
        ['after.txt', after.length, after.length],
      ]);
      expect(entries[2].relativeOffsetOfLocalHeader).toBeGreaterThan(4 * GiB);
      // Finding the end records reads the archive's last 64 KiB (where a comment could be), and so
      // the end of the content there; nothing before it was asked for.
      const tail = plan.size - (20 + 22 + 0xffff);
      for (const [index, start] of opened) expect(plan.contentRange(index).offset + start).toBeGreaterThanOrEqual(tail);
      opened.length = 0;

      // The local header of the large entry carries both sizes in its ZIP64 extra field.
      const local = await zip.readLocalFileHeaderPromise(entries[1]);
      expect(local.versionNeededToExtract).toBe(45);
      expect([local.compressedSize, local.uncompressedSize]).toEqual([0xffffffff, 0xffffffff]);
      const zip64 = yauzl.parseExtraFields(local.extraField).find((field) => field.id === 0x0001);
      expect(zip64?.data.length).toBe(16);
      expect([Number(zip64?.data.readBigUInt64LE(0)), Number(zip64?.data.readBigUInt64LE(8))]).toEqual([BIG, BIG]);
      expect(local.crc32).toBe(entries[1].crc32);

      // The entry past 4 GiB, found through the ZIP64 offset of its central header.
      const last = await collect(await zip.openReadStreamPromise(entries[2]));
      expect(last.equals(after)).toBe(true);
      expect(opened).toEqual([[2, 0, after.length - 1]]);

      // The large entry itself, every byte through the archive stream: its length and CRC-32.
      const content = await zip.openReadStreamPromise(entries[1]);
      let length = 0;
      let value = 0;
      for await (const chunk of content) {
        length += chunk.length;
        value = crc32(chunk, value);
      }
      expect(length).toBe(BIG);
      expect(value).toBe(entries[1].crc32);
      expect(
        createHash('sha256')
          .update(await collect(generated(0, 999)))
          .digest('hex'),
      ).toBe(createHash('sha256').update(BLOCK.subarray(0, 1000)).digest('hex'));
      zip.close();
    }, 120_000);

    it('then unzip lists the archive past 4 GiB and tests the entries around the large one (the large one all zeros, a hole in a sparse file)', async () => {
      // zipStream is asked only for the bytes around the large content, so the file on disk holds
      // a few hundred bytes. Testing the large entry too would take unzip a minute on its 4 GiB;
      // yauzl reads it whole above.
      const zeros = Buffer.alloc(1024 * 1024);
      let zerosCrc = 0;
      for (let at = 0; at < BIG; at += zeros.length)
        zerosCrc = crc32(zeros.subarray(0, Math.min(zeros.length, BIG - at)), zerosCrc);
      const plan = planWith(zerosCrc);
      const big = plan.contentRange(1);
      const opened: number[] = [];
      const file = await writeArchive(
        plan,
        [
          { start: 0, end: big.offset - 1 },
          { start: big.offset + big.size, end: plan.size - 1 },
        ],
        async (index, start, end) => {
          opened.push(index);
          return Readable.from([(index === 0 ? before : after).subarray(start, end + 1)], { objectMode: false });
        },
      );
      expect(opened).toEqual([0, 2]);
      const { stdout: tested } = await run('unzip', ['-t', file, 'before.txt', 'after.txt']);
      expect(tested).toMatch(/testing: before\.txt +OK/);
      expect(tested).toMatch(/testing: after\.txt +OK/);
      expect(tested).toContain('for the 2 files tested');
      const { stdout: listed } = await run('unzip', ['-l', file], { env: { ...process.env, TZ: 'UTC' } });
      expect(listed).toMatch(new RegExp(`^\\s*${BIG}\\s+2026-03-14 15:09\\s+large/disk image\\.bin$`, 'm'));
      expect(listed).toMatch(/\s3 files$/m);
      const { stdout: extracted } = await run('unzip', ['-p', file, 'after.txt']);
      expect(extracted).toBe(after.toString());
    }, 120_000);
  });
});
