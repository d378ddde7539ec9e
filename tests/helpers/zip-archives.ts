// Reading ZIP archives the way their users will: with yauzl (a well-kept unzip library) and with
// Info-ZIP's `unzip` (Debian's package), each entry's bytes compared by SHA-256.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import yauzl from 'yauzl';
import { sendZip } from '../../server/archive/send-zip';
import type { ZipByteRange, ZipPlan } from '../../server/archive/zip-plan';
import { sendContent } from '../../server/storage/send-content';

const run = promisify(execFile);

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function collect(stream: Readable): Promise<Buffer> {
  return Buffer.concat(await stream.toArray());
}

/** Bytes [start, end] (inclusive) of entry `index`'s content, as a ranged read of a store gives them. */
export type OpenZipEntry = (index: number, start: number, end: number) => Promise<Readable>;

/**
 * The planned archive (or one range of it) as a stream to read: what `sendZip` sends a client,
 * each entry's content from `openEntry` sent as a store sends it. The stream fails with the error
 * `sendZip` rejects with; destroying it is a client going away.
 */
export function zipStream(plan: ZipPlan, range: ZipByteRange | null, openEntry: OpenZipEntry): Readable {
  const output = new PassThrough();
  const client = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (output.write(chunk)) callback();
      else output.once('drain', () => callback());
    },
    final(callback) {
      output.end();
      callback();
    },
  });
  output.once('close', () => client.destroy());
  sendZip(
    plan,
    range,
    async (index, start, end, into) => sendContent(await openEntry(index, start, end), into, { end: false }),
    client,
  ).catch((error: Error) => output.destroy(error));
  return output;
}

export interface ReadEntry {
  name: string;
  sha256: string;
  flags: number;
  size: number;
  crc32: number;
  modifiedAt: Date;
  dosModifiedAt: Date;
}

/** Every entry as yauzl reads it (sizes checked by yauzl against the central directory). */
export async function readWithYauzl(bytes: Buffer): Promise<ReadEntry[]> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true, strictFileNames: true });
  const entries: ReadEntry[] = [];
  for await (const entry of zip.eachEntry()) {
    const content = await collect(await zip.openReadStreamPromise(entry));
    entries.push({
      name: entry.fileName,
      sha256: sha256(content),
      flags: entry.generalPurposeBitFlag,
      size: entry.uncompressedSize,
      crc32: entry.crc32,
      modifiedAt: entry.getLastModDate(),
      dosModifiedAt: entry.getLastModDate({ forceDosFormat: true, timezone: 'UTC' }),
    });
  }
  return entries;
}

/** `unzip -t` on the archive (written into `folder`), then every entry extracted by unzip: its SHA-256 by name. */
export async function checkWithUnzip(bytes: Buffer, folder: string): Promise<Map<string, string>> {
  const file = join(folder, 'archive.zip');
  await writeFile(file, bytes);
  const tested = await run('unzip', ['-t', file], { maxBuffer: 64 * 1024 * 1024 });
  expect(tested.stdout).toContain('No errors detected in compressed data');
  const listed = await run('unzip', ['-Z1', file], { maxBuffer: 64 * 1024 * 1024 });
  const names = listed.stdout.split('\n').filter((line) => line !== '');
  const into = join(folder, 'out');
  await run('unzip', ['-qq', file, '-d', into], { maxBuffer: 64 * 1024 * 1024 });
  const extracted = new Map<string, string>();
  for (const name of names) extracted.set(name, sha256(await readFile(join(into, name))));
  return extracted;
}
