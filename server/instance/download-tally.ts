// Downloads of links without a download limit are counted in memory and added to their rows
// once a second (ADR 0020). Counted one by one, every small download was a database write of
// its own, half the database work of serving it. Nothing depends on those counts but the
// owner's view of them, so they may show up to a second late; a crash loses at most that
// second. Links with a limit are still counted at once, in one atomic statement
// (share-access.ts: countFileDownload), because the count decides who gets the file.
// Several instances each add their own counts: increments commute.
// Views of share pages (ADR 0066) are counted the same way, in their own column: a view decides
// nothing either, and a page opened by many is one write a second, not one per look.
import type { Logger } from 'pino';
import type { DirectSql } from '../db/direct-sql';
import { addFileCounts, type CountedColumn, FILES_PER_STATEMENT } from '../db/file-counts';

export const DOWNLOAD_TALLY_EVERY_MS = 1_000;

/** The batch cut into runs of FILES_PER_STATEMENT's sizes, largest first. */
function statementsFor(batch: Array<[string, number]>): Array<Array<[string, number]>> {
  const runs: Array<Array<[string, number]>> = [];
  let at = 0;
  for (const size of FILES_PER_STATEMENT) {
    while (batch.length - at >= size) {
      runs.push(batch.slice(at, at + size));
      at += size;
    }
  }
  return runs;
}

export class DownloadTally {
  private pending: Record<CountedColumn, Map<string, number>> = { downloads: new Map(), views: new Map() };
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: DirectSql,
    private readonly log: Logger,
  ) {}

  /** One more download of the file, or one more view of its share page. */
  add(fileId: string, what: CountedColumn = 'downloads'): void {
    const pending = this.pending[what];
    pending.set(fileId, (pending.get(fileId) ?? 0) + 1);
  }

  /** Writes what was counted so far; resolves once it is in the database (or kept for the next try). */
  flush(): Promise<void> {
    // One write at a time, in order: a flush waits for the one under way, then writes the rest.
    this.writing = this.writing.then(async () => {
      await this.writePending('downloads');
      await this.writePending('views');
    });
    return this.writing;
  }

  private async writePending(what: CountedColumn): Promise<void> {
    if (this.pending[what].size === 0) return;
    const batch = [...this.pending[what]];
    this.pending[what] = new Map();
    let written = 0;
    try {
      // A file deleted meanwhile changes no row: its counts go with it.
      for (const run of statementsFor(batch)) {
        await addFileCounts(this.sql, what, run);
        written += run.length;
      }
    } catch (error) {
      const pending = this.pending[what];
      for (const [fileId, count] of batch.slice(written)) pending.set(fileId, (pending.get(fileId) ?? 0) + count);
      this.log.warn(
        { err: error, files: batch.length - written },
        what === 'downloads'
          ? 'download counts not written; they are kept for the next try'
          : 'view counts not written; they are kept for the next try',
      );
    }
  }
}
