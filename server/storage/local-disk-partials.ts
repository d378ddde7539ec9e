// Resumable content on the local disk: UPLOAD_DIR/.resumable/<key>, appended to in place and
// renamed into UPLOAD_DIR/<key> when finished (same filesystem, so the rename is atomic).
// Only the recorded bytes are ever content: bytes past them (a crash or a lost record after
// they were written, a request that lost its claim and still wrote) are cut off before the next
// append and before the rename (ADR 0019).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { makeDirectories } from '../utilities/make-directories';
import { asStorageError } from './disk-errors';
import { receivedChunks } from './received-chunks';
import { isSafeKey, type AppendOptions, type PartialContentStore, type PartialProgress } from './content-store';

const RESUMABLE_DIR = '.resumable';
/** Chunks are gathered into writes of this size (the request hands them over in 16–64 KiB). */
const WRITE_BYTES = 1024 * 1024;
/** Durable progress is recorded every this many bytes, so a crash loses at most this much. */
const CHECKPOINT_EVERY_BYTES = 32 * 1024 * 1024;
/**
 * The disk is asked to catch up (fdatasync) every this many bytes, checkpoint or not, so that
 * the sync at the end of a request, which its answer waits for, has at most this much left.
 */
const SYNC_EVERY_BYTES = 8 * 1024 * 1024;
/** The disk keeps nothing besides the bytes: its state is always this. */
const NO_STATE = '';

export class LocalDiskPartials implements PartialContentStore {
  readonly dir: string;

  constructor(private readonly root: string) {
    this.dir = path.join(root, RESUMABLE_DIR);
    makeDirectories(this.dir);
  }

  async begin(key: string): Promise<string> {
    await storageErrors(() => fsp.writeFile(this.partialPath(key), '', { flag: 'wx', mode: 0o640 }));
    return NO_STATE;
  }

  async append(
    key: string,
    from: PartialProgress,
    content: Readable,
    options: AppendOptions,
  ): Promise<PartialProgress> {
    return storageErrors(async () => {
      const handle = await fsp.open(this.partialPath(key), 'r+');
      try {
        // Bytes past the recorded progress were never acknowledged: they are written again.
        await cutToRecorded(handle, from.size);
        const writer = new CheckpointedWriter(handle, from.size, options.checkpoint);
        for await (const chunk of receivedChunks(content)) await writer.add(chunk);
        return { size: await writer.close(), state: NO_STATE };
      } finally {
        await handle.close();
      }
    });
  }

  async finish(key: string, progress: PartialProgress): Promise<void> {
    await storageErrors(async () => {
      const handle = await fsp.open(this.partialPath(key), 'r+');
      try {
        await cutToRecorded(handle, progress.size);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await fsp.rename(this.partialPath(key), path.join(this.root, key));
    });
  }

  async discard(key: string): Promise<void> {
    await fsp.rm(this.partialPath(key), { force: true });
  }

  /** Partial content not written to since `modifiedBefore`: its upload has expired. Returns how many were removed. */
  async sweep(modifiedBefore: Date): Promise<number> {
    let removed = 0;
    for (const name of await fsp.readdir(this.dir)) {
      const file = path.join(this.dir, name);
      const stats = await fsp.stat(file).catch(() => null);
      if (!stats || stats.mtimeMs >= modifiedBefore.getTime()) continue;
      await fsp.rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  private partialPath(key: string): string {
    if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    return path.join(this.dir, key);
  }
}

/**
 * Writes chunks at the end of the partial file in large writes, makes them durable (fdatasync)
 * every SYNC_EVERY_BYTES and reports the durable progress every CHECKPOINT_EVERY_BYTES. Syncs
 * and reports run beside the writes that follow, one at a time, so the upload does not wait
 * for the disk at each of them; the request's answer waits only for the last stretch.
 *
 * Chunks are copied into one buffer of WRITE_BYTES, reused for every write, rather than kept
 * until 1 MiB has gathered: a socket's chunk held that long outlives two young-generation
 * collections and is promoted, and only full collections free promoted buffers (with the
 * server's small young generation and --heap-growing-percent=25, ADR 0020, they took a third of
 * the main thread during a tus upload). Copied at once, a chunk dies young.
 */
class CheckpointedWriter {
  private readonly buffer = Buffer.allocUnsafeSlow(WRITE_BYTES);
  private filled = 0;
  private written: number;
  private nextSyncAt: number;
  private nextCheckpointAt: number;
  private syncing: Promise<void> | null = null;
  /** A sync or checkpoint that failed: close() reports it (the caller's record is then the last that held). */
  private syncFailure: unknown = null;

  constructor(
    private readonly handle: fsp.FileHandle,
    start: number,
    private readonly checkpoint: (progress: PartialProgress) => Promise<void>,
  ) {
    this.written = start;
    this.nextSyncAt = start + SYNC_EVERY_BYTES;
    this.nextCheckpointAt = start + CHECKPOINT_EVERY_BYTES;
  }

  async add(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const copied = chunk.copy(this.buffer, this.filled, offset);
      this.filled += copied;
      offset += copied;
      if (this.filled === this.buffer.length) await this.flush();
    }
  }

  /** Writes what is left and makes everything durable; returns the size now stored. */
  async close(): Promise<number> {
    await this.flush();
    await this.syncing;
    if (this.syncFailure) throw this.syncFailure;
    await this.handle.datasync();
    return this.written;
  }

  private async flush(): Promise<void> {
    let sent = 0;
    // A short write (rare on a file) leaves a remainder: written on until it is all out.
    while (sent < this.filled) {
      const { bytesWritten } = await this.handle.write(this.buffer, sent, this.filled - sent, this.written);
      this.written += bytesWritten;
      sent += bytesWritten;
    }
    this.filled = 0;
    if (this.written >= this.nextSyncAt && !this.syncing && !this.syncFailure) this.startSync();
  }

  private startSync(): void {
    const size = this.written;
    this.nextSyncAt = size + SYNC_EVERY_BYTES;
    const report = size >= this.nextCheckpointAt;
    if (report) this.nextCheckpointAt = size + CHECKPOINT_EVERY_BYTES;
    this.syncing = this.handle
      .datasync()
      .then(() => (report ? this.checkpoint({ size, state: NO_STATE }) : undefined))
      .catch((error: unknown) => {
        this.syncFailure ??= error;
      })
      .finally(() => {
        this.syncing = null;
      });
  }
}

/**
 * Leaves exactly the `recorded` bytes in the partial file. Fewer on disk than recorded means the
 * record is wrong: refused, rather than filled with zeros as a truncate would.
 */
async function cutToRecorded(handle: fsp.FileHandle, recorded: number): Promise<void> {
  const { size } = await handle.stat();
  if (size < recorded) throw new Error(`Partial content holds ${size} bytes where ${recorded} were recorded`);
  if (size > recorded) await handle.truncate(recorded);
}

/** Disk faults as the store contract names them. */
async function storageErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asStorageError(error);
  }
}
