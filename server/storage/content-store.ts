// The content store: where file bytes live, addressed by key (a file's storedName).
// Services only talk to this interface, so a move to object storage is a new implementation,
// not a rewrite: the service is built to grow past one machine.
import type { Readable, Writable } from 'node:stream';

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface ContentStat {
  size: number;
  modifiedAt: Date;
}

export interface WriteOptions {
  /** The largest content accepted: past it the write fails with ContentTooLargeError. */
  maxBytes: number;
  /**
   * Called once all of the content has arrived, before it becomes visible under its key. A
   * rejection fails the write with that error, and nothing is left behind: the request that
   * carried the content turned out bad after its last byte (a multipart body broken later on).
   */
  beforeCommit?: () => Promise<void>;
}

/** How many of its first bytes a write reports: what a file's type is read from (ADR 0064). */
export const FIRST_BYTES_KEPT = 4096;

/**
 * What a write stored: its length and its CRC-32 (a ZIP entry records it), and its first
 * FIRST_BYTES_KEPT bytes (all of it when shorter), all taken as the bytes passed.
 */
export interface WrittenContent {
  size: number;
  crc32: number;
  firstBytes: Buffer;
}

export interface ContentStore {
  /**
   * Writes `content` under `key` atomically: readers see either nothing or the whole content.
   * Rejects with ContentTooLargeError as soon as more than `maxBytes` arrive, and with
   * StorageFullError when the disk is full, StorageUnavailableError when it refuses writes;
   * in every failure nothing is left behind.
   */
  write(key: string, content: Readable, options: WriteOptions): Promise<WrittenContent>;
  /**
   * Opens the content (or one byte range of it) for reading. Rejects with
   * ContentNotFoundError when there is none, before a byte was read.
   */
  open(key: string, range?: ByteRange): Promise<OpenedContent>;
  /** Null when there is no content under `key`. */
  stat(key: string): Promise<ContentStat | null>;
  /** Removes the content; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key whose content was last written before `modifiedBefore`. */
  list(options: { modifiedBefore: Date }): Promise<string[]>;
  /**
   * Removes leftovers of writes that never completed (a crash mid-upload) and were last
   * touched (on S3: begun) before `modifiedBefore`, but never those of the keys in `keep`:
   * writes still under way somewhere. Returns how many were removed.
   */
  sweepIncomplete(options: { modifiedBefore: Date; keep?: ReadonlySet<string> }): Promise<number>;
  /** Throws when content cannot be written (health check). */
  checkWritable(): Promise<void>;
  /** Content written over several requests: resumable uploads. */
  readonly partial: PartialContentStore;
}

/** How long resumable content may live unfinished; the sweep removes leftovers older than this. */
export const PARTIAL_CONTENT_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Where partial content stands: what the store needs to carry on, and how much is durable. */
export interface PartialProgress {
  /** Bytes stored durably: they survive a crash of the process or the machine. */
  size: number;
  /** The store's own bookkeeping (JSON-safe text): kept by the caller between requests. */
  state: string;
}

export interface AppendOptions {
  /** The size the whole content will have. */
  length: number;
  /** Records durable progress (called now and then during an append). */
  checkpoint: (progress: PartialProgress) => Promise<void>;
}

/**
 * Content written piece by piece over several requests (a resumable upload): begun, appended to,
 * then finished (the content appears under its key whole, at once, as `write` does) or discarded.
 * Nothing is readable under the key before it is finished. The caller keeps the progress between
 * calls (in the database), runs one call at a time per key, and starts each append from the
 * progress it last recorded: whatever the store holds beyond it (a crash before the record) is
 * dropped and written again.
 */
export interface PartialContentStore {
  /** Starts empty content for `key`; returns its first state. */
  begin(key: string): Promise<string>;
  /**
   * Adds `content` after `from`. `length` is the size the whole content will have: the store may
   * treat the bytes that reach it differently. While bytes arrive, `checkpoint` is called now and
   * then with progress that is durable, for the caller to record. Resolves with the progress once
   * every byte received is durable, also when `content` fails (a client that went away keeps what
   * arrived); rejects only when the storage fails, and then the last checkpoint is what holds.
   */
  append(key: string, from: PartialProgress, content: Readable, options: AppendOptions): Promise<PartialProgress>;
  /** Makes the content (all `length` bytes of it received) readable under `key`. */
  finish(key: string, progress: PartialProgress): Promise<void>;
  /** Removes the partial content; discarding what is already gone is not an error. */
  discard(key: string, state: string): Promise<void>;
}

/** Keys are stored names: an id and an optional letters-and-digits extension, nothing else. */
const SAFE_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)?$/;

/** Whether `key` can be a key of this contract (never a path, never a dot file). */
export function isSafeKey(key: string): boolean {
  return SAFE_KEY.test(key);
}

/** Content opened for reading: as a stream, or sent straight into a destination. */
export interface OpenedContent {
  stream: Readable;
  /**
   * Sends the whole stream into `destination` and ends it, as `pipeline` does (each store may
   * do it its own faster way); rejects when either side fails or the destination closes early.
   * Content small enough to be read whole may resolve once it is handed to the destination.
   * With `end: false` the destination stays open for more (the next piece of an archive), and
   * this resolves once every byte is handed to it. Resolves with the number of bytes sent.
   */
  pipeTo(destination: Writable, options?: PipeOptions): Promise<number>;
}

export interface PipeOptions {
  /** Whether to end the destination after the content (default true). */
  end?: boolean;
}

/** There is no content under the key (never written, or deleted). */
export class ContentNotFoundError extends Error {
  override name = 'ContentNotFoundError';
}

export class ContentTooLargeError extends Error {
  override name = 'ContentTooLargeError';
}

export class StorageFullError extends Error {
  override name = 'StorageFullError';
}

/** The storage refuses writes for now (a read-only or unreachable store): nothing was kept. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
}
