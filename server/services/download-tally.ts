// Downloads of links without a download limit are counted in memory and added to their rows
// once a second (ADR 0020). Counted one by one, every small download was a database write of
// its own, half the database work of serving it. Nothing depends on those counts but the
// owner's view of them, so they may show up to a second late; a crash loses at most that
// second. Links with a limit are still counted at once, in one atomic statement
// (share-access.ts: countFileDownload), because the count decides who gets the file.
// Several instances each add their own counts: increments commute.
import type { Logger } from 'pino';
import type { DirectSql } from '../db/direct-sql';

export const DOWNLOAD_TALLY_EVERY_MS = 1_000;

/**
 * How many files one statement counts, largest first: a flush splits its files into statements
 * of these sizes. With one statement per file, a server busy with downloads of many different
 * files (an image host's gallery) wrote once per download: 3,600 commits a second in the bench.
 * Now 3,600 files take 15 statements. Few sizes, so PostgreSQL keeps few prepared statements.
 */
const FILES_PER_STATEMENT = [256, 64, 16, 4, 1];

/** Adds each (file id, count) pair of the VALUES list to its row: the same text runs on both databases. */
function addDownloadsStatement(files: number): string {
  const values = Array.from({ length: files }, () => '(?, cast(? as integer))').join(', ');
  // VALUES names its columns column1, column2 on SQLite and PostgreSQL alike.
  return `update "files" set "downloads" = "downloads" + "v"."column2" from (values ${values}) as "v" where "files"."id" = "v"."column1"`;
}

const ADD_DOWNLOADS = new Map(FILES_PER_STATEMENT.map((files) => [files, addDownloadsStatement(files)]));

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
  private pending = new Map<string, number>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: DirectSql,
    private readonly log: Logger,
  ) {}

  /** One more download of the file. */
  add(fileId: string): void {
    this.pending.set(fileId, (this.pending.get(fileId) ?? 0) + 1);
  }

  /** Writes what was counted so far; resolves once it is in the database (or kept for the next try). */
  flush(): Promise<void> {
    // One write at a time, in order: a flush waits for the one under way, then writes the rest.
    this.writing = this.writing.then(() => this.writePending());
    return this.writing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending = new Map();
    let written = 0;
    try {
      // A file deleted meanwhile changes no row: its downloads go with it.
      for (const run of statementsFor(batch)) {
        await this.sql.change(ADD_DOWNLOADS.get(run.length) as string, run.flat());
        written += run.length;
      }
    } catch (error) {
      for (const [fileId, count] of batch.slice(written))
        this.pending.set(fileId, (this.pending.get(fileId) ?? 0) + count);
      this.log.warn(
        { err: error, files: batch.length - written },
        'download counts not written; they are kept for the next try',
      );
    }
  }
}
