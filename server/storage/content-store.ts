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

export interface ContentStore {
  /**
   * Writes `content` under `key` atomically: readers see either nothing or the whole content.
   * Rejects with ContentTooLargeError as soon as more than `maxBytes` arrive, and with
   * StorageFullError when the disk is full, StorageUnavailableError when it refuses writes;
   * in every failure nothing is left behind.
   */
  write(key: string, content: Readable, options: { maxBytes: number }): Promise<{ size: number }>;
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
   * touched before `modifiedBefore`: younger ones may be another instance's upload under way.
   * Returns how many were removed.
   */
  sweepIncomplete(options: { modifiedBefore: Date }): Promise<number>;
  /** Throws when content cannot be written (health check). */
  checkWritable(): Promise<void>;
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
   */
  pipeTo(destination: Writable): Promise<void>;
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
