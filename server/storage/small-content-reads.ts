// Small content (a range of up to 64 KiB: an image host's screenshots and thumbnails) is read
// on the event loop: open, one read, close, synchronously (ADR 0025). From the page cache those
// three calls take a few microseconds, while each trip to libuv's thread pool costs the loop a
// thread wake-up and a completion on a machine whose cores are busy: the two trips (open, read)
// were a quarter of a small download's time, and the raw route served 15-30 % more downloads a
// second without them (docs/performance.md). nginx reads files the same way.
//
// The price is that a read the page cache cannot answer waits for the disk with the loop held.
// So every read is timed, and when reads take longer than the budget on average (a slow or cold
// disk, not one read the scheduler paused) the reads that follow go to the thread pool for a
// while: such a disk holds the loop for a few reads, not for all of them.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ByteRange } from './content-store';

/** Reads on the loop slower than this on average (disk accesses, not the page cache) send the next ones to the pool. */
const LOOP_READ_BUDGET_MS = 1;
/**
 * The weight of the latest read in the average. On a busy 2-core machine a few reads a second
 * from the page cache took 1-5 ms (the scheduler paused the loop in them), among thousands under
 * 0.5 ms: those move the average by a tenth of a millisecond each. A disk that takes 8 ms a read
 * moves it past the budget within five reads.
 */
const LATEST_READ_WEIGHT = 1 / 32;
/** How long reads stay on the pool after a slow one, before the loop tries again. */
const POOL_AFTER_SLOW_READ_MS = 10_000;

export interface SmallContentReadsOptions {
  log?: Logger;
  /** Overrides LOOP_READ_BUDGET_MS (tests: a negative budget counts every read as slow). */
  loopReadBudgetMs?: number;
}

export class SmallContentReads {
  /** Until when (Date.now()) reads go to the thread pool; 0 while the loop reads. */
  private poolUntil = 0;
  /** The moving average of the reads on the loop, in ms. */
  private averageMs = 0;
  private readonly budgetMs: number;

  constructor(private readonly options: SmallContentReadsOptions = {}) {
    this.budgetMs = options.loopReadBudgetMs ?? LOOP_READ_BUDGET_MS;
  }

  /** The bytes of `range` of `file`: fewer when the file is shorter. Rejects with the system's error (ENOENT, EISDIR). */
  read(file: string, range: ByteRange): Promise<Buffer> {
    if (this.poolUntil !== 0) {
      if (Date.now() < this.poolUntil) return readOnPool(file, range);
      this.poolUntil = 0;
    }
    const started = performance.now();
    try {
      return Promise.resolve(readOnLoop(file, range));
    } catch (error) {
      return Promise.reject(error);
    } finally {
      const tookMs = performance.now() - started;
      this.averageMs += (tookMs - this.averageMs) * LATEST_READ_WEIGHT;
      if (this.averageMs > this.budgetMs) this.moveToPool();
    }
  }

  private moveToPool(): void {
    this.options.log?.info(
      { averageMs: Math.round(this.averageMs * 100) / 100, forMs: POOL_AFTER_SLOW_READ_MS },
      'small reads waited for the disk: they go to the thread pool for a while',
    );
    this.poolUntil = Date.now() + POOL_AFTER_SLOW_READ_MS;
    // Judged afresh when the loop tries again.
    this.averageMs = 0;
  }
}

function readOnLoop(file: string, range: ByteRange): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(range.end - range.start + 1);
    const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, range.start);
    return buffer.subarray(0, bytesRead);
  } finally {
    closeReadOnly(fd);
  }
}

/** The same on libuv's thread pool: one open, one read, then the close (synchronous, as on the loop). */
function readOnPool(file: string, range: ByteRange): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    fs.open(file, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      const buffer = Buffer.allocUnsafe(range.end - range.start + 1);
      fs.read(fd, buffer, 0, buffer.length, range.start, (readError, bytesRead) => {
        closeReadOnly(fd);
        if (readError) reject(readError);
        else resolve(buffer.subarray(0, bytesRead));
      });
    });
  });
}

/**
 * A read-only descriptor has nothing to flush: close(2) returns at once, so it is closed on the
 * loop in both cases (handing it to the pool cost the loop more than the call itself).
 */
function closeReadOnly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing was written through it: there is nothing a failed close could lose.
  }
}
