// A file's downloads and views in its row: a download of a link with a limit counted at once, in
// one atomic statement, because the count decides who gets the file (services/share-access.ts);
// the others added up in memory and written a second later, many files a statement
// (instance/download-tally.ts, ADR 0020). Both written out (direct-sql.ts).
import type { DirectSql } from './direct-sql';

// A file's row keeps when it was last counted: once used up, it stays until every claim on its
// downloads has run out (services/maintenance.ts: removeExpiredFiles).
const COUNT_FILE_DOWNLOAD =
  'update "files" set "downloads" = "downloads" + 1, "last_download_at" = ? where "id" = ? ' +
  'and ("max_downloads" is null or "downloads" < "max_downloads") and ("expires_at" is null or "expires_at" > ?)';

/**
 * Counts one download of a file's link while it has one to give at `now`, in one statement: 1
 * when it was counted, 0 when the link is gone (or the file).
 */
export function countDownloadOfFile(sql: DirectSql, fileId: string, now: Date): Promise<number> {
  return sql.change(COUNT_FILE_DOWNLOAD, [now, fileId, now]);
}

/**
 * How many files one statement counts, largest first: a flush splits its files into statements
 * of these sizes. With one statement per file, a server busy with downloads of many different
 * files (an image host's gallery) wrote once per download: 3,600 commits a second in the bench.
 * Now 3,600 files take 15 statements. Few sizes, so PostgreSQL keeps few prepared statements.
 */
export const FILES_PER_STATEMENT = [256, 64, 16, 4, 1];

/** What the tally counts of a file: each is a column of its row. */
export type CountedColumn = 'downloads' | 'views';

/**
 * Adds each (file id, count) pair of the VALUES list to the column of its row: the same text runs
 * on both databases. A statement sets its one column only: the file.downloaded webhook's
 * trigger watches `downloads` (ADR 0050), and a view is no download.
 */
function addCountsStatement(column: CountedColumn, files: number): string {
  const values = Array.from({ length: files }, () => '(?, cast(? as integer))').join(', ');
  // VALUES names its columns column1, column2 on SQLite and PostgreSQL alike.
  return `update "files" set "${column}" = "${column}" + "v"."column2" from (values ${values}) as "v" where "files"."id" = "v"."column1"`;
}

const ADD_COUNTS = {
  downloads: new Map(FILES_PER_STATEMENT.map((files) => [files, addCountsStatement('downloads', files)])),
  views: new Map(FILES_PER_STATEMENT.map((files) => [files, addCountsStatement('views', files)])),
};

/**
 * Adds each count to its file's column, in one statement; `run` holds as many (file id, count)
 * pairs as one of FILES_PER_STATEMENT's sizes. A file deleted meanwhile changes no row.
 */
export async function addFileCounts(
  sql: DirectSql,
  column: CountedColumn,
  run: Array<[string, number]>,
): Promise<void> {
  await sql.change(ADD_COUNTS[column].get(run.length) as string, run.flat());
}
