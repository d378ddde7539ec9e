// The statements on collections that hot requests run, written out (direct-sql.ts): a collection
// password's grant checked on each file it opens (ADR 0067), a download of a collection's link
// counted, and what a collection's archive is laid out from and kept by (ADR 0036, ADR 0055).
// Collections are otherwise written and read through the ORM (services/collections.ts).
import type { DirectSql } from './direct-sql';
import { type StoredDate, storedDateMillis } from './stored-date';

/** A protected collection that holds a file, as a grant for it is checked. */
export interface GrantingCollection {
  id: string;
  passwordHash: string;
  expiresAt: Date | number | null;
  maxDownloads: number | string | null;
  downloads: number | string;
}

/**
 * The protected, enabled owner's collections among `count` ids that hold a file: one statement
 * per count, which auth/cookie.ts: readCollectionGrants keeps small (each is prepared and kept, ADR 0024).
 */
function grantingCollectionsSql(count: number): string {
  const ids = Array.from({ length: count }, () => '?').join(', ');
  return (
    'select "c"."id" as "id", "c"."password_hash" as "passwordHash", "c"."expires_at" as "expiresAt", ' +
    '"c"."max_downloads" as "maxDownloads", "c"."downloads" as "downloads" ' +
    'from "collection_files" "cf" join "collections" "c" on "c"."id" = "cf"."collection_id" ' +
    'join "users" "u" on "u"."id" = "c"."user_id" ' +
    `where "cf"."file_id" = ? and "cf"."collection_id" in (${ids}) ` +
    'and "c"."password_hash" is not null and "u"."disabled_at" is null'
  );
}

/** Those of the collections `collectionIds` that hold the file, are protected and whose owner is enabled. */
export function selectGrantingCollections(
  sql: DirectSql,
  fileId: string,
  collectionIds: string[],
): Promise<GrantingCollection[]> {
  return sql.select<GrantingCollection>(grantingCollectionsSql(collectionIds.length), [fileId, ...collectionIds]);
}

const COUNT_COLLECTION_DOWNLOAD =
  'update "collections" set "downloads" = "downloads" + 1 where "id" = ? ' +
  'and ("max_downloads" is null or "downloads" < "max_downloads") and ("expires_at" is null or "expires_at" > ?)';

/**
 * Counts one download of a collection's link while it has one to give at `now`, in one
 * statement: 1 when it was counted, 0 when the link is gone (or the collection).
 */
export function countDownloadOfCollection(sql: DirectSql, collectionId: string, now: Date): Promise<number> {
  return sql.change(COUNT_COLLECTION_DOWNLOAD, [collectionId, now]);
}

// One statement, so that the version and the count are read together.
const COLLECTION_STATE =
  'select "c"."files_version" as "version", ' +
  '(select count(*) from "collection_files" "m" where "m"."collection_id" = "c"."id") as "files" ' +
  'from "collections" "c" where "c"."id" = ?';

/** A collection's files version and its count of files; null when there is no such collection. */
export async function selectCollectionFilesState(
  sql: DirectSql,
  collectionId: string,
): Promise<{ version: number | string; files: number | string } | null> {
  const [row] = await sql.select<{ version: number | string; files: number | string }>(COLLECTION_STATE, [
    collectionId,
  ]);
  return row ?? null;
}

// Downloads only ever add up, so a link once used up stays so: a count that has not grown names the same files.
const USED_UP_FILES =
  'select count(*) as "files" from "collection_files" "m" join "files" "f" on "f"."id" = "m"."file_id" ' +
  'where "m"."collection_id" = ? and "f"."max_downloads" is not null and "f"."downloads" >= "f"."max_downloads"';

/** How many of a collection's files have used up their own downloads. */
export async function countUsedUpFilesOfCollection(sql: DirectSql, collectionId: string): Promise<number> {
  const [row] = await sql.select<{ files: number | string }>(USED_UP_FILES, [collectionId]);
  return Number(row?.files ?? 0);
}

/** Files read a statement: each statement's rows become objects on the event loop at once. */
const ROWS_PER_READ = 1_000;

// The files after a place, in order. Two files that join at the same moment can take the same
// place: the file id orders them, as everywhere (services/collections.ts: entriesOf), so that the archive
// never changes between requests.
const ENTRIES_AFTER =
  'select "m"."position" as "position", "m"."file_id" as "id", "m"."path" as "path", "f"."size" as "size", ' +
  '"f"."crc32" as "crc32", "f"."created_at" as "createdAt", "f"."stored_name" as "storedName", ' +
  '"f"."expires_at" as "expiresAt", "f"."max_downloads" as "maxDownloads", "f"."downloads" as "downloads" ' +
  'from "collection_files" "m" join "files" "f" on "f"."id" = "m"."file_id" ' +
  'where "m"."collection_id" = ? and "m"."position" >= ? and ("m"."position" > ? or "m"."file_id" > ?) ' +
  `order by "m"."position", "m"."file_id" limit ${ROWS_PER_READ}`;

interface EntryRow {
  position: number;
  id: string;
  path: string;
  size: number | string;
  crc32: number | string | null;
  createdAt: StoredDate;
  storedName: string;
  expiresAt: StoredDate;
  maxDownloads: number | string | null;
  downloads: number | string;
}

/** A file of a collection, as its archive needs it. */
export interface CollectionEntry {
  id: string;
  path: string;
  size: number;
  crc32: number | null;
  createdAt: Date;
  storedName: string;
  expiresAt: Date | null;
  maxDownloads: number | null;
  downloads: number;
}

/** The collection's files in order, read ROWS_PER_READ at a time. */
export async function selectCollectionEntries(sql: DirectSql, collectionId: string): Promise<CollectionEntry[]> {
  const entries: CollectionEntry[] = [];
  let after = { position: -1, id: '' };
  for (;;) {
    const rows = await sql.select<EntryRow>(ENTRIES_AFTER, [collectionId, after.position, after.position, after.id]);
    // Dates and numbers as each dialect returns them (PostgreSQL gives bigint as text).
    for (const row of rows)
      entries.push({
        id: row.id,
        path: row.path,
        size: Number(row.size),
        crc32: row.crc32 === null ? null : Number(row.crc32),
        createdAt: new Date(storedDateMillis(row.createdAt) ?? 0),
        storedName: row.storedName,
        expiresAt: row.expiresAt === null ? null : new Date(storedDateMillis(row.expiresAt) ?? 0),
        maxDownloads: row.maxDownloads === null ? null : Number(row.maxDownloads),
        downloads: Number(row.downloads),
      });
    if (rows.length < ROWS_PER_READ) return entries;
    after = { position: Number(rows[rows.length - 1].position), id: rows[rows.length - 1].id };
  }
}
