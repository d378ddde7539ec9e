// Content on the local disk: UPLOAD_DIR/<key>, written through UPLOAD_DIR/.incomplete/
// (same filesystem, so the final rename is atomic) and only renamed into place when complete.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { finished as finishedCallback, Readable, type Transform, type Writable } from 'node:stream';
import { makeDirectories } from '../utilities/make-directories';
import { ByteCounter } from './byte-counter';
import { asStorageError } from './disk-errors';
import { LocalDiskPartials } from './local-disk-partials';
import { sendContent, writeBytes } from './send-content';
import { SmallContentReads, type SmallContentReadsOptions } from './small-content-reads';
import {
  ContentNotFoundError,
  PARTIAL_CONTENT_LIFETIME_MS,
  isSafeKey,
  type ByteRange,
  type ContentStat,
  type ContentStore,
  type OpenedContent,
  type PipeOptions,
  type WriteOptions,
  type WrittenContent,
} from './content-store';

const INCOMPLETE_DIR = '.incomplete';
/** `.incomplete/<key>.part`: an upload's content until it is complete. */
const PART_SUFFIX = '.part';
/** Large chunks move big files at about twice the speed of Node's 64 KiB default. */
const MAX_CHUNK_BYTES = 1024 * 1024;
/** Content up to this size is read in one go and sent whole, without a stream between. */
const SMALL_CONTENT_BYTES = 64 * 1024;
/** While a large file comes in, the disk is asked to catch up every this many bytes (EarlyWriteback). */
const WRITEBACK_EVERY_BYTES = 32 * 1024 * 1024;

export class LocalDiskStore implements ContentStore {
  private readonly incompleteDir: string;
  readonly partial: LocalDiskPartials;
  private readonly smallReads: SmallContentReads;
  private readonly readBuffers = new ReadBufferPool();

  constructor(
    private readonly root: string,
    options: SmallContentReadsOptions = {},
  ) {
    this.smallReads = new SmallContentReads(options);
    this.incompleteDir = path.join(root, INCOMPLETE_DIR);
    makeDirectories(this.incompleteDir);
    this.partial = new LocalDiskPartials(root);
  }

  async write(key: string, content: Readable, options: WriteOptions): Promise<WrittenContent> {
    const finalPath = this.pathOf(key);
    // Named after its key: the sweep keeps the file while the upload's row names the key (ADR 0029).
    const tempPath = path.join(this.incompleteDir, `${key}${PART_SUFFIX}`);
    const writeback = new EarlyWriteback(tempPath);
    const counter = new ByteCounter(options.maxBytes, (bytes) => writeback.progress(bytes));
    // `flush`: fsync before close, so a crash after the rename never exposes a file with holes.
    const output = fs.createWriteStream(tempPath, {
      flags: 'wx',
      mode: 0o640,
      flush: true,
      highWaterMark: MAX_CHUNK_BYTES,
    });
    try {
      await pipeThrough(content, counter, output);
      await writeback.close();
      await options.beforeCommit?.();
      await fsp.rename(tempPath, finalPath);
      return { size: counter.bytes, crc32: counter.crc32, firstBytes: counter.firstBytes.bytes() };
    } catch (error) {
      // pipeThrough rejects as soon as the content fails, maybe before the file stream has even
      // opened its file (the open waits in libuv's thread pool): removing first would let that
      // open create the temp file afterwards, for good. Its 'close' comes after the open.
      if (!output.closed) await new Promise<void>((resolve) => output.once('close', () => resolve()));
      await writeback.close();
      // Best effort: when the folder itself is what failed, there is nothing to remove (or the
      // sweep removes it later); the write's own error is the one to report.
      await fsp.rm(tempPath, { force: true }).catch(() => undefined);
      throw asStorageError(error);
    }
  }

  async open(key: string, range?: ByteRange): Promise<OpenedContent> {
    if (range && range.end - range.start + 1 <= SMALL_CONTENT_BYTES)
      return openSmallContent(this.smallReads, this.pathOf(key), key, range);
    const highWaterMark = Math.max(
      16 * 1024,
      Math.min(range ? range.end - range.start + 1 : MAX_CHUNK_BYTES, MAX_CHUNK_BYTES),
    );
    const stream = new FileChunkStream(
      this.pathOf(key),
      range?.start ?? 0,
      range?.end ?? Infinity,
      highWaterMark,
      this.readBuffers,
    );
    try {
      await once(stream, 'ready');
    } catch (error) {
      stream.destroy();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ContentNotFoundError(`No content under ${key}`);
      throw error;
    }
    return { stream, pipeTo: (destination, options) => sendReusingBuffers(stream, destination, options) };
  }

  async stat(key: string): Promise<ContentStat | null> {
    try {
      const stats = await fsp.stat(this.pathOf(key));
      return stats.isFile() ? { size: stats.size, modifiedAt: stats.mtime } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  async list(options: { modifiedBefore: Date }): Promise<string[]> {
    const entries = await fsp.readdir(this.root, { withFileTypes: true });
    const candidates = entries.filter((entry) => entry.isFile() && isSafeKey(entry.name)).map((entry) => entry.name);
    const old = await Promise.all(
      candidates.map((name) => this.lastWrittenBefore(path.join(this.root, name), options.modifiedBefore)),
    );
    return candidates.filter((_, i) => old[i]);
  }

  /**
   * Leftovers in `.incomplete` but the temporary files of uploads still being received (`keep`:
   * their keys); also resumable content untouched for longer than any resumable upload lives
   * (its row is gone).
   */
  async sweepIncomplete(options: { modifiedBefore: Date; keep?: ReadonlySet<string> }): Promise<number> {
    const leftovers = await fsp.readdir(this.incompleteDir);
    let removed = await this.partial.sweep(new Date(options.modifiedBefore.getTime() - PARTIAL_CONTENT_LIFETIME_MS));
    for (const name of leftovers) {
      if (name.endsWith(PART_SUFFIX) && options.keep?.has(name.slice(0, -PART_SUFFIX.length))) continue;
      const file = path.join(this.incompleteDir, name);
      if (!(await this.lastWrittenBefore(file, options.modifiedBefore))) continue;
      await fsp.rm(file, { force: true });
      removed++;
    }
    return removed;
  }

  /** False for a file written since `cutoff`, and for one that is gone already. */
  private async lastWrittenBefore(file: string, cutoff: Date): Promise<boolean> {
    try {
      return (await fsp.stat(file)).mtimeMs < cutoff.getTime();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  /**
   * Really writes a tiny probe file where uploads are written and renames it to where they end
   * up, then removes it: access(W_OK) alone says yes to root on a read-only mode, and to a
   * `.incomplete` that is no longer a folder. A probe left in `.incomplete` by a crash is swept
   * like any leftover; one left in UPLOAD_DIR (a crash between rename and remove) is an empty dot
   * file the sweep does not touch.
   */
  async checkWritable(): Promise<void> {
    const name = `healthz-${randomBytes(6).toString('hex')}.probe`;
    const probe = path.join(this.incompleteDir, name);
    const placed = path.join(this.root, `.${name}`);
    await fsp.writeFile(probe, '', { flag: 'wx', mode: 0o600 });
    try {
      await fsp.rename(probe, placed);
    } finally {
      await fsp.rm(probe, { force: true });
      await fsp.rm(placed, { force: true });
    }
  }

  private pathOf(key: string): string {
    if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    return path.join(this.root, key);
  }
}

/**
 * `pipeline(source, through, sink)` for this one use, without what it adds per call: an
 * AbortController aborted once the streams are done, whose AbortError (a stack trace) showed
 * in small uploads' profiles. Resolves once the sink has finished; at the first failure of any
 * of the three, destroys all three and rejects with that failure, as pipeline does.
 */
function pipeThrough(source: Readable, through: Transform, sink: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const stream of [source, through, sink]) stream.destroy(error);
      reject(error);
    };
    finishedCallback(source, { writable: false }, (error) => error && fail(error));
    finishedCallback(through, (error) => error && fail(error));
    finishedCallback(sink, (error) => {
      if (error) return fail(error);
      settled = true;
      resolve();
    });
    source.pipe(through).pipe(sink);
  });
}

/**
 * Lets the disk write a large file while it is still coming in: every WRITEBACK_EVERY_BYTES,
 * one fdatasync of the temp file through a second, read-only descriptor (never two at once).
 * Without it the kernel keeps the whole file as dirty pages and the fsync at close writes all
 * of it while the client waits (about a fifth of a 1 GiB upload here, docs/performance.md).
 * Durability is unchanged: that final fsync (`flush`) still happens before the rename; it only
 * has the last stretch left to write. Files under the threshold never start one.
 */
class EarlyWriteback {
  private handle: Promise<fsp.FileHandle> | null = null;
  private inFlight: Promise<void> | null = null;
  private nextAt = WRITEBACK_EVERY_BYTES;

  constructor(private readonly file: string) {}

  progress(bytes: number): void {
    if (bytes < this.nextAt || this.inFlight) return;
    this.nextAt = bytes + WRITEBACK_EVERY_BYTES;
    this.handle ??= fsp.open(this.file, 'r');
    // Best effort: a failure here changes nothing, the final fsync reports real write errors.
    this.inFlight = this.handle
      .then((handle) => handle.datasync())
      .catch(() => undefined)
      .finally(() => {
        this.inFlight = null;
      });
  }

  /** Waits for a writeback under way and closes the second descriptor. */
  async close(): Promise<void> {
    await this.inFlight;
    await this.handle?.then(
      (handle) => handle.close(),
      () => undefined,
    );
  }
}

/**
 * A byte range small enough for one read (an image host's thumbnails and screenshots): read
 * whole into one buffer before any header is sent, on the event loop while the disk answers
 * from its cache (small-content-reads.ts; a missing file, or a folder in its place, is a
 * ContentNotFoundError), then sent with a single `end`. A stream, with its async iterator and
 * its events, cost more than the read itself. `stream` serves other readers (the share page's
 * text preview).
 */
async function openSmallContent(
  reads: SmallContentReads,
  file: string,
  key: string,
  range: ByteRange,
): Promise<OpenedContent> {
  const bytes = await reads.read(file, range).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EISDIR') throw new ContentNotFoundError(`No content under ${key}`);
    throw error;
  });
  if (bytes.length !== range.end - range.start + 1)
    throw new Error(`The content under ${key} is shorter than its record`);
  let stream: Readable | null = null;
  return {
    get stream() {
      stream ??= Readable.from([bytes]);
      return stream;
    },
    async pipeTo(destination, options) {
      // Already in memory, handed over whole: nothing is left to hold back, and a client that
      // goes away is the socket's business. Waiting for the end (finished()) cost every small
      // download its listeners and a promise, and kept the request's objects alive until the
      // last byte left: ~7 % of its CPU, in the collector (docs/performance.md).
      if (options?.end === false) await writeBytes(destination, bytes);
      else destination.end(bytes);
      return bytes.length;
    },
  };
}

/** How many handed-back buffers a FileChunkStream keeps for its next reads. */
const MAX_SPARE_BUFFERS = 4;
/** How many buffers the store keeps between reads, for the next content read. */
const MAX_POOLED_BUFFERS = 4;

/**
 * Read buffers (MAX_CHUNK_BYTES each) handed back by reads that ended, for the next read of any
 * content. "Download all" reads one file after another: without it each file's read allocated
 * buffers of its own, and a 1,000-file archive cost the collector as much as its bytes.
 */
class ReadBufferPool {
  private readonly free: Buffer[] = [];

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(MAX_CHUNK_BYTES);
  }

  /** Takes a buffer nothing refers to any more. */
  give(buffer: Buffer): void {
    if (this.free.length < MAX_POOLED_BUFFERS) this.free.push(buffer);
  }
}

/**
 * A file (or a byte range of it) as a stream of chunks, like fs.createReadStream (`pending`,
 * 'open' and 'ready', open errors such as ENOENT as 'error'), with one addition: a consumer
 * may hand a chunk back with `release(chunk)` once nothing refers to it any more, and its
 * buffer is read into again. The raw download does so once the socket has taken each chunk,
 * so a download cycles through a few buffers instead of allocating one per chunk: in a
 * process of this size every ~30 MB of fresh buffers costs a full garbage collection
 * (docs/performance.md). A consumer that never releases simply gets fresh buffers. Buffers
 * come from the store's pool and go back to it when the stream ends.
 */
class FileChunkStream extends Readable {
  private fd: number | null = null;
  private position: number;
  private reading = false;
  private afterRead: (() => void) | null = null;
  private readonly spare: Buffer[] = [];
  /** A read asks for no more than the range: a 100 KiB file is one read. */
  private readonly readBytes: number;
  /**
   * Buffers out with the consumer, by their memory: only these can come back, and only once.
   * Weak, so that the chunks a consumer keeps or drops without releasing are collected as usual.
   */
  private readonly lent = new WeakSet<ArrayBufferLike>();

  constructor(
    private readonly file: string,
    start: number,
    private readonly end: number,
    chunkBytes: number,
    private readonly pool: ReadBufferPool,
  ) {
    super({ highWaterMark: chunkBytes });
    this.position = start;
    this.readBytes = Math.max(1, Math.min(chunkBytes, MAX_CHUNK_BYTES, end - start + 1));
  }

  get pending(): boolean {
    return this.fd === null;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    fs.open(this.file, 'r', (error, fd) => {
      if (error) return callback(error);
      this.fd = fd;
      // A folder opens too: it is no content (as missing as no file at all).
      fs.fstat(fd, (statError, stats) => {
        if (statError) return callback(statError);
        if (!stats.isFile()) return callback(Object.assign(new Error(`Not a file: ${this.file}`), { code: 'ENOENT' }));
        callback();
        this.emit('open', fd);
        this.emit('ready');
      });
    });
  }

  override _read(): void {
    const wanted = Math.min(this.readBytes, this.end - this.position + 1);
    if (wanted <= 0) return void this.push(null);
    const buffer = this.spare.pop() ?? this.pool.take();
    this.reading = true;
    fs.read(this.fd as number, buffer, 0, wanted, this.position, (error, bytesRead) => {
      this.reading = false;
      if (this.afterRead) return this.afterRead();
      if (error) return void this.destroy(error);
      if (bytesRead === 0) {
        // The file ends before the range does (cut short outside the service): the length was
        // promised already, so the reader must fail rather than end short.
        if (Number.isFinite(this.end) && this.position <= this.end) {
          return void this.destroy(
            new Error(`${this.file} ends at byte ${this.position}, before the range's end ${this.end}`),
          );
        }
        this.spare.push(buffer);
        return void this.push(null);
      }
      this.position += bytesRead;
      this.lent.add(buffer.buffer);
      this.push(buffer.subarray(0, bytesRead));
    });
  }

  /** Hands a chunk of this stream back for reuse; the caller must not touch it afterwards. */
  release(chunk: Buffer): void {
    if (!this.lent.delete(chunk.buffer)) return;
    const whole = Buffer.from(chunk.buffer, 0, MAX_CHUNK_BYTES);
    if (this.destroyed || this.spare.length >= MAX_SPARE_BUFFERS) this.pool.give(whole);
    else this.spare.push(whole);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Never close the descriptor under a read in flight: the number could be reused meanwhile.
    const close = () => {
      this.afterRead = null;
      for (const buffer of this.spare.splice(0)) this.pool.give(buffer);
      if (this.fd === null) return callback(error);
      const fd = this.fd;
      this.fd = null;
      fs.close(fd, (closeError) => callback(error ?? closeError));
    };
    if (this.reading) this.afterRead = close;
    else close();
  }
}

/**
 * Streams the content into the destination, handing each chunk back to the FileChunkStream
 * once the destination (a socket) has taken it, so its buffer is read into again instead of a
 * new one being allocated per chunk.
 */
function sendReusingBuffers(body: FileChunkStream, destination: Writable, options?: PipeOptions): Promise<number> {
  return sendContent(body, destination, { taken: (chunk) => body.release(chunk), end: options?.end });
}
