// A ZIP archive laid out in full before its first byte, then streamed in any byte range (ADR 0036).
//
// Every entry is STORED (method 0): its bytes in the archive are the file's own, so with the size
// and CRC-32 recorded at upload every header, every offset and the archive's length are known up
// front. The response can say its Content-Length and answer Range requests: a range is produced
// by generating the header bytes it covers and reading only the content ranges it covers.
// Local headers carry the CRC and sizes (no data descriptors); ZIP64 records appear where a size,
// an offset or the number of entries needs them (APPNOTE 6.3.x, sections 4.3 to 4.5).
import { normaliseArchivePath } from './archive-paths';

export interface ZipEntryInput {
  /** The entry's path in the archive, as `normaliseArchivePath` gives it. */
  name: string;
  /** The content's length in bytes. */
  size: number;
  /** The content's CRC-32 (as `zlib.crc32` computes it). */
  crc32: number;
  /** Recorded as the entry's modification time. */
  modifiedAt: Date;
}

export interface ZipByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

/** A planned archive: its length, and what is needed to produce any of its bytes. */
export interface ZipPlan {
  /** The archive's length in bytes. */
  readonly size: number;
  /** The number of entries. */
  readonly entryCount: number;
  /** Where entry `index`'s content starts in the archive, and how long it is. */
  contentRange(index: number): { offset: number; size: number };
}

/** Thrown into the archive stream when an entry's content is not the length its plan says. */
export class ZipContentLengthError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
    this.name = 'ZipContentLengthError';
  }
}

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const END_SIGNATURE = 0x06054b50;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;
const END_BYTES = 22;
const ZIP64_END_BYTES = 56;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_EXTRA_ID = 0x0001;
const EXTENDED_TIMESTAMP_ID = 0x5455;
const EXTENDED_TIMESTAMP_BYTES = 9; // id, length, flags, modification time
/** 0xFFFFFFFF and 0xFFFF mark a field whose value is in the ZIP64 records; they are never values. */
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;
/** Made by UNIX (3), spec 6.3: the external attributes carry UNIX permissions. */
const VERSION_MADE_BY = (3 << 8) | 63;
const VERSION_DEFAULT = 20;
const VERSION_ZIP64 = 45;
/** Bit 11: the name is UTF-8. */
const FLAG_UTF8 = 0x0800;
const METHOD_STORED = 0;
/** A regular file, rw-r--r--. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;
/** How much of the central directory is generated at a time. */
const DIRECTORY_CHUNK_BYTES = 64 * 1024;

interface PlannedEntry {
  /** Encoded as its headers are made: a Buffer for each of 10,000 names cost more than the rest of the plan. */
  name: string;
  nameBytes: number;
  size: number;
  crc32: number;
  dosTime: number;
  dosDate: number;
  unixTime: number;
  localOffset: number;
  /** Whether the local header carries a ZIP64 extra field (the sizes). */
  zip64Size: boolean;
  /** Whether the central header carries the local header's offset in its ZIP64 extra field. */
  zip64Offset: boolean;
}

class Plan implements ZipPlan {
  readonly size: number;
  readonly entryCount: number;
  /** Where the central directory starts, its length, and where the trailing records start. */
  readonly directoryOffset: number;
  readonly directorySize: number;
  /** Offsets of each entry's central header, relative to the directory (one more: its end). */
  readonly directoryOffsets: Float64Array;
  readonly trailer: Buffer;

  constructor(readonly entries: PlannedEntry[]) {
    this.entryCount = entries.length;
    const last = entries.at(-1);
    this.directoryOffset = last ? last.localOffset + localHeaderSize(last) + last.size : 0;
    this.directoryOffsets = new Float64Array(entries.length + 1);
    let offset = 0;
    for (let i = 0; i < entries.length; i++) {
      this.directoryOffsets[i] = offset;
      offset += centralHeaderSize(entries[i]);
    }
    this.directoryOffsets[entries.length] = offset;
    this.directorySize = offset;
    this.trailer = trailerBytes(entries.length, this.directoryOffset, this.directorySize);
    this.size = this.directoryOffset + this.directorySize + this.trailer.length;
  }

  contentRange(index: number): { offset: number; size: number } {
    const entry = this.entries[index];
    if (!entry) throw new RangeError(`The archive has no entry ${index}.`);
    return { offset: entry.localOffset + localHeaderSize(entry), size: entry.size };
  }

  /** The entry whose local header or content holds archive byte `position` (below the directory). */
  entryAt(position: number): number {
    let low = 0;
    let high = this.entries.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.entries[middle].localOffset <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The entry whose central header holds directory byte `position` (relative to the directory). */
  directoryEntryAt(position: number): number {
    let low = 0;
    let high = this.entries.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.directoryOffsets[middle] <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

/**
 * Lays out the archive of `entries`, in their order. Throws when an entry cannot be planned: a
 * name that `normaliseArchivePath` would not give unchanged, a size that is not a whole number
 * of bytes, a CRC-32 that is not one, or an invalid date (the caller's mistakes, not the user's).
 * Names are expected distinct (`distinctArchiveNames`). Holds a few dozen bytes per entry
 * besides its name, never content.
 */
export function planZip(entries: readonly ZipEntryInput[]): ZipPlan {
  const planner = new ZipPlanner();
  for (const entry of entries) planner.add(entry);
  return planner.finish();
}

/**
 * planZip one entry at a time: a caller with thousands of entries may let other work run
 * between them (ADR 0055). `add` throws as planZip does.
 */
export class ZipPlanner {
  private readonly planned: PlannedEntry[] = [];
  private offset = 0;

  add(entry: ZipEntryInput): void {
    const index = this.planned.length;
    const normalised = normaliseArchivePath(entry.name);
    if (!normalised.ok || normalised.path !== entry.name)
      throw new TypeError(`Entry ${index} has a name that is not a normalised archive path.`);
    if (!Number.isSafeInteger(entry.size) || entry.size < 0)
      throw new TypeError(`Entry ${index} has a size that is not a whole number of bytes.`);
    if (!Number.isInteger(entry.crc32) || entry.crc32 < 0 || entry.crc32 > MAX_32)
      throw new TypeError(`Entry ${index} has a CRC-32 that is not an unsigned 32-bit number.`);
    if (Number.isNaN(entry.modifiedAt.getTime())) throw new TypeError(`Entry ${index} has an invalid date.`);
    const { dosTime, dosDate } = dosDateTime(entry.modifiedAt);
    const item: PlannedEntry = {
      name: entry.name,
      nameBytes: Buffer.byteLength(entry.name),
      size: entry.size,
      crc32: entry.crc32,
      dosTime,
      dosDate,
      unixTime: Math.min(Math.max(Math.floor(entry.modifiedAt.getTime() / 1000), 0), MAX_32),
      localOffset: this.offset,
      zip64Size: entry.size >= MAX_32,
      zip64Offset: this.offset >= MAX_32,
    };
    this.planned.push(item);
    this.offset += localHeaderSize(item) + item.size;
  }

  /** The plan of the entries added. */
  finish(): ZipPlan {
    const plan = new Plan(this.planned);
    if (!Number.isSafeInteger(plan.size)) throw new RangeError('The archive would be too large.');
    return plan;
  }
}

/** One piece of an archive's byte range: bytes made here (headers), or a range of an entry's content. */
export type ZipSegment =
  | { bytes: Buffer }
  /** Bytes [start, end] (inclusive, relative to the content) of entry `entry`'s content. */
  | { entry: number; start: number; end: number };

/**
 * Bytes [range.start, range.end] (inclusive) of the planned archive, the whole archive when
 * `range` is null, as the pieces that make them up, in order: header bytes generated as they are
 * reached, and the part of each entry's content the range covers (the caller reads it from the
 * store, and must send exactly that many bytes: see ZipContentLengthError).
 */
export function zipSegments(plan: ZipPlan, range: ZipByteRange | null): Generator<ZipSegment> {
  if (!(plan instanceof Plan)) throw new TypeError('The plan must come from planZip.');
  const start = range?.start ?? 0;
  const end = range?.end ?? plan.size - 1;
  // Checked now, not when the first piece is asked for.
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= plan.size)
    throw new RangeError(`The range ${start}-${end} is not within the archive's ${plan.size} bytes.`);
  return segmentsOf(plan, start, end);
}

function* segmentsOf(plan: Plan, start: number, end: number): Generator<ZipSegment> {
  let position = start;
  while (position <= end) {
    if (position < plan.directoryOffset) {
      const index = plan.entryAt(position);
      const entry = plan.entries[index];
      const contentOffset = entry.localOffset + localHeaderSize(entry);
      if (position < contentOffset) {
        const bytes = slice(
          localHeader(entry),
          position - entry.localOffset,
          Math.min(contentOffset, end + 1) - position,
        );
        position += bytes.length;
        yield { bytes };
        continue;
      }
      const last = Math.min(contentOffset + entry.size - 1, end);
      yield { entry: index, start: position - contentOffset, end: last - contentOffset };
      position = last + 1;
      continue;
    }
    const directoryEnd = plan.directoryOffset + plan.directorySize;
    if (position < directoryEnd) {
      const relative = position - plan.directoryOffset;
      const first = plan.directoryEntryAt(relative);
      const headers: Buffer[] = [];
      let bytes = 0;
      for (let i = first; i < plan.entryCount && bytes < DIRECTORY_CHUNK_BYTES; i++) {
        const header = centralHeader(plan.entries[i]);
        headers.push(header);
        bytes += header.length;
      }
      const from = relative - plan.directoryOffsets[first];
      const chunk = slice(Buffer.concat(headers, bytes), from, Math.min(bytes - from, end + 1 - position));
      position += chunk.length;
      yield { bytes: chunk };
      continue;
    }
    const chunk = slice(plan.trailer, position - directoryEnd, end + 1 - position);
    position += chunk.length;
    yield { bytes: chunk };
  }
}

function slice(bytes: Buffer, from: number, length: number): Buffer {
  return bytes.subarray(from, from + length);
}

function localHeaderSize(entry: PlannedEntry): number {
  return LOCAL_HEADER_BYTES + entry.nameBytes + (entry.zip64Size ? 20 : 0) + EXTENDED_TIMESTAMP_BYTES;
}

function centralZip64Bytes(entry: PlannedEntry): number {
  const fields = (entry.zip64Size ? 2 : 0) + (entry.zip64Offset ? 1 : 0);
  return fields === 0 ? 0 : 4 + 8 * fields;
}

function centralHeaderSize(entry: PlannedEntry): number {
  return CENTRAL_HEADER_BYTES + entry.nameBytes + centralZip64Bytes(entry) + EXTENDED_TIMESTAMP_BYTES;
}

function versionNeeded(entry: PlannedEntry): number {
  return entry.zip64Size || entry.zip64Offset ? VERSION_ZIP64 : VERSION_DEFAULT;
}

/** Local file header (4.3.7), the sizes in a ZIP64 extra field (4.5.3) when they need one. */
function localHeader(entry: PlannedEntry): Buffer {
  const header = Buffer.alloc(localHeaderSize(entry));
  const size32 = entry.zip64Size ? MAX_32 : entry.size;
  header.writeUInt32LE(LOCAL_HEADER_SIGNATURE, 0);
  header.writeUInt16LE(versionNeeded(entry), 4);
  header.writeUInt16LE(FLAG_UTF8, 6);
  header.writeUInt16LE(METHOD_STORED, 8);
  header.writeUInt16LE(entry.dosTime, 10);
  header.writeUInt16LE(entry.dosDate, 12);
  header.writeUInt32LE(entry.crc32, 14);
  header.writeUInt32LE(size32, 18); // compressed size
  header.writeUInt32LE(size32, 22); // uncompressed size
  header.writeUInt16LE(entry.nameBytes, 26);
  header.writeUInt16LE(header.length - LOCAL_HEADER_BYTES - entry.nameBytes, 28);
  let at = LOCAL_HEADER_BYTES + header.write(entry.name, LOCAL_HEADER_BYTES, 'utf8');
  if (entry.zip64Size) {
    // In a local header the ZIP64 field holds both sizes, uncompressed first.
    at = header.writeUInt16LE(ZIP64_EXTRA_ID, at);
    at = header.writeUInt16LE(16, at);
    at = writeUInt64(header, entry.size, at);
    at = writeUInt64(header, entry.size, at);
  }
  writeExtendedTimestamp(header, entry, at);
  return header;
}

/** Central directory header (4.3.12), with a ZIP64 extra field holding only the fields that overflow. */
function centralHeader(entry: PlannedEntry): Buffer {
  const header = Buffer.alloc(centralHeaderSize(entry));
  const size32 = entry.zip64Size ? MAX_32 : entry.size;
  header.writeUInt32LE(CENTRAL_HEADER_SIGNATURE, 0);
  header.writeUInt16LE(VERSION_MADE_BY, 4);
  header.writeUInt16LE(versionNeeded(entry), 6);
  header.writeUInt16LE(FLAG_UTF8, 8);
  header.writeUInt16LE(METHOD_STORED, 10);
  header.writeUInt16LE(entry.dosTime, 12);
  header.writeUInt16LE(entry.dosDate, 14);
  header.writeUInt32LE(entry.crc32, 16);
  header.writeUInt32LE(size32, 20);
  header.writeUInt32LE(size32, 24);
  header.writeUInt16LE(entry.nameBytes, 28);
  header.writeUInt16LE(header.length - CENTRAL_HEADER_BYTES - entry.nameBytes, 30);
  header.writeUInt16LE(0, 32); // comment length
  header.writeUInt16LE(0, 34); // disk number start
  header.writeUInt16LE(0, 36); // internal attributes
  header.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  header.writeUInt32LE(entry.zip64Offset ? MAX_32 : entry.localOffset, 42);
  let at = CENTRAL_HEADER_BYTES + header.write(entry.name, CENTRAL_HEADER_BYTES, 'utf8');
  const zip64Bytes = centralZip64Bytes(entry);
  if (zip64Bytes > 0) {
    at = header.writeUInt16LE(ZIP64_EXTRA_ID, at);
    at = header.writeUInt16LE(zip64Bytes - 4, at);
    if (entry.zip64Size) {
      at = writeUInt64(header, entry.size, at);
      at = writeUInt64(header, entry.size, at);
    }
    if (entry.zip64Offset) at = writeUInt64(header, entry.localOffset, at);
  }
  writeExtendedTimestamp(header, entry, at);
  return header;
}

/** The Info-ZIP extended timestamp (0x5455): the modification time in UTC, to the second. */
function writeExtendedTimestamp(header: Buffer, entry: PlannedEntry, at: number): void {
  let offset = header.writeUInt16LE(EXTENDED_TIMESTAMP_ID, at);
  offset = header.writeUInt16LE(5, offset);
  offset = header.writeUInt8(1, offset); // the modification time is present
  header.writeUInt32LE(entry.unixTime, offset);
}

/**
 * The end of central directory record (4.3.16), preceded by the ZIP64 end record (4.3.14) and
 * its locator (4.3.15) when the entry count, the directory's size or its offset overflows.
 */
function trailerBytes(entryCount: number, directoryOffset: number, directorySize: number): Buffer {
  const zip64 = entryCount >= MAX_16 || directoryOffset >= MAX_32 || directorySize >= MAX_32;
  const trailer = Buffer.alloc((zip64 ? ZIP64_END_BYTES + ZIP64_LOCATOR_BYTES : 0) + END_BYTES);
  let at = 0;
  if (zip64) {
    const zip64EndOffset = directoryOffset + directorySize;
    at = trailer.writeUInt32LE(ZIP64_END_SIGNATURE, at);
    at = writeUInt64(trailer, ZIP64_END_BYTES - 12, at); // the record's size after this field
    at = trailer.writeUInt16LE(VERSION_MADE_BY, at);
    at = trailer.writeUInt16LE(VERSION_ZIP64, at);
    at = trailer.writeUInt32LE(0, at); // this disk
    at = trailer.writeUInt32LE(0, at); // the disk where the directory starts
    at = writeUInt64(trailer, entryCount, at); // entries on this disk
    at = writeUInt64(trailer, entryCount, at); // entries in all
    at = writeUInt64(trailer, directorySize, at);
    at = writeUInt64(trailer, directoryOffset, at);
    at = trailer.writeUInt32LE(ZIP64_LOCATOR_SIGNATURE, at);
    at = trailer.writeUInt32LE(0, at); // the disk of the ZIP64 end record
    at = writeUInt64(trailer, zip64EndOffset, at);
    at = trailer.writeUInt32LE(1, at); // disks in all
  }
  at = trailer.writeUInt32LE(END_SIGNATURE, at);
  at = trailer.writeUInt16LE(0, at); // this disk
  at = trailer.writeUInt16LE(0, at); // the disk where the directory starts
  at = trailer.writeUInt16LE(Math.min(entryCount, MAX_16), at);
  at = trailer.writeUInt16LE(Math.min(entryCount, MAX_16), at);
  at = trailer.writeUInt32LE(Math.min(directorySize, MAX_32), at);
  at = trailer.writeUInt32LE(Math.min(directoryOffset, MAX_32), at);
  trailer.writeUInt16LE(0, at); // comment length
  return trailer;
}

function writeUInt64(buffer: Buffer, value: number, offset: number): number {
  return buffer.writeBigUInt64LE(BigInt(value), offset);
}

/**
 * MS-DOS date and time (4.4.6), from the UTC calendar so that the same upload time gives the same
 * bytes on every server; clamped to the years DOS can say (1980 to 2107), seconds halved.
 */
function dosDateTime(date: Date): { dosTime: number; dosDate: number } {
  const year = date.getUTCFullYear();
  if (year < 1980) return { dosTime: 0, dosDate: (1 << 5) | 1 };
  if (year > 2107) return { dosTime: (23 << 11) | (59 << 5) | 29, dosDate: (127 << 9) | (12 << 5) | 31 };
  return {
    dosTime: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    dosDate: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}
