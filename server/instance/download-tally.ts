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

export const DOWNLOAD_TALLY_EVERY_MS = 1_000;

/**
 * How many files one statement counts, largest first: a flush splits its files into statements
 * of these sizes. With one statement per file, a server busy with downloads of many different
 * files (an image host's gallery) wrote once per download: 3,600 commits a second in the bench.
 * Now 3,600 files take 15 statements. Few sizes, so PostgreSQL keeps few prepared statements.
 */
const FILES_PER_STATEMENT = [256, 64, 16, 4, 1];

/** What the tally counts of a file: each is a column of its row. */
type Counted = 'downloads' | 'views';

/**
 * Adds each (file id, count) pair of the VALUES list to the column of its row: the same text runs
 * on both databases. A statement sets its one column only: the file.downloaded webhook's
 * trigger watches `downloads` (ADR 0050), and a view is no download.
 */
function addCountsStatement(column: Counted, files: number): string {
  const values = Array.from({ length: files }, () => '(?, cast(? as integer))').join(', ');
  // VALUES names its columns column1, column2 on SQLite and PostgreSQL alike.
  return `update "files" set "${column}" = "${column}" + "v"."column2" from (values ${values}) as "v" where "files"."id" = "v"."column1"`;
}

const ADD_COUNTS = {
  downloads: new Map(FILES_PER_STATEMENT.map((files) => [files, addCountsStatement('downloads', files)])),
  views: new Map(FILES_PER_STATEMENT.map((files) => [files, addCountsStatement('views', files)])),
};

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
  private pending: Record<Counted, Map<string, number>> = { downloads: new Map(), views: new Map() };
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: DirectSql,
    private readonly log: Logger,
  ) {}

  /** One more download of the file, or one more view of its share page. */
  add(fileId: string, what: Counted = 'downloads'): void {
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

  private async writePending(what: Counted): Promise<void> {
    if (this.pending[what].size === 0) return;
    const batch = [...this.pending[what]];
    this.pending[what] = new Map();
    let written = 0;
    try {
      // A file deleted meanwhile changes no row: its counts go with it.
      for (const run of statementsFor(batch)) {
        await this.sql.change(ADD_COUNTS[what].get(run.length) as string, run.flat());
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
