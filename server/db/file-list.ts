// A user's list of files (`GET /api/v1/files`, My files), narrowed by name and kind and in one of
// four orders, written out for each database (direct-sql.ts). Lists are read as plain rows on the
// read connection and turned into the API's objects in one pass: no entities, no identity map, no
// query builder, whose plain rows still made a list of 10,000 files cost about twice the bare
// SELECT + JSON (docs/performance.md, ADR 0020). The rules of the list (its parameters, its
// cursors) are the service's (services/files.ts).
import type { DirectSql } from './direct-sql';
import type { StoredFile } from './entities/file.entity';
import { FILE_COLUMNS } from './files';

/** What the list can be narrowed to, by MIME type. */
export const FILE_KINDS = ['images', 'video', 'audio', 'documents', 'code', 'other'] as const;
/** The orders of the list: newest (the default), oldest, name (A to Z), size (largest first). */
export const FILE_SORTS = ['newest', 'oldest', 'name', 'size'] as const;
export type FileKind = (typeof FILE_KINDS)[number];
export type FileSort = (typeof FILE_SORTS)[number];

/** What a list shows of a user's files: a part of their name (any case), a kind, an order. */
export interface FileListFilters {
  q: string | null;
  type: FileKind | null;
  sort: FileSort;
}

/** A file's place in an order, as its cursor carries it: a date's milliseconds, a size or a name. */
export type SortKey = number | string;

/** A list's row: a file's columns, its request's id and title, the guest's name and note. */
export type ListedFileRow = StoredFile & { listedRequestId: string | null; requestTitle: string | null };

/** A value a statement takes for a `?`. */
type SqlValue = string | number | Date;

// A guest's file names its request: joined in the list's one statement (by the request's
// primary key), never looked up file by file.
const LISTED_FROM = 'from "files" "f" left join "file_requests" "r" on "r"."id" = "f"."request_id"';

// SQLite keeps dates as milliseconds; strftime's %f gives seconds with three decimals, which
// makes toISOString's text exactly (checked on 200,000 random instants).
const SQLITE_ISO = (column: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', "f"."${column}" / 1000.0, 'unixepoch')`;
// One object per row, in order (json_group_array with ORDER BY would quote each one as a
// string in SQLite 3.44: the sort drops their JSON subtype).
// A nested object or null: json() keeps the object's JSON subtype through the case (and gives null for null).
const filesJsonSqlite = (where: string, order: string) =>
  `select json_object(` +
  `'id', "f"."id", 'userId', "f"."user_id", 'originalName', "f"."original_name", 'mimeType', "f"."mime_type", 'size', "f"."size", ` +
  `'storedName', "f"."stored_name", 'createdAt', ${SQLITE_ISO('created_at')}, ` +
  `'expiresAt', case when "f"."expires_at" is null then null else ${SQLITE_ISO('expires_at')} end, ` +
  `'maxDownloads', "f"."max_downloads", 'downloads', "f"."downloads", 'views', "f"."views", ` +
  `'hasPassword', json(case when "f"."password_hash" is null then 'false' else 'true' end), ` +
  `'request', json(case when "r"."id" is null then null else json_object('id', "r"."id", 'title', "r"."title") end), ` +
  `'receivedFrom', json(case when "f"."guest_name" is null and "f"."guest_note" is null then null ` +
  `else json_object('name', "f"."guest_name", 'note', "f"."guest_note") end)` +
  `) as "file" ${LISTED_FROM} where ${where} order by ${order}`;

// Dates are kept to the millisecond (they come from JavaScript), so MS loses nothing.
const POSTGRES_ISO = (column: string) => `to_char("f"."${column}" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const filesJsonPostgres = (where: string, order: string) =>
  'select (json_agg(json_build_object(' +
  `'id', "f"."id", 'userId', "f"."user_id", 'originalName', "f"."original_name", 'mimeType', "f"."mime_type", 'size', "f"."size", ` +
  `'storedName', "f"."stored_name", 'createdAt', ${POSTGRES_ISO('created_at')}, ` +
  `'expiresAt', ${POSTGRES_ISO('expires_at')}, 'maxDownloads', "f"."max_downloads", 'downloads', "f"."downloads", ` +
  `'views', "f"."views", 'hasPassword', "f"."password_hash" is not null, ` +
  `'request', case when "r"."id" is null then null else json_build_object('id', "r"."id", 'title', "r"."title") end, ` +
  `'receivedFrom', case when "f"."guest_name" is null and "f"."guest_note" is null then null ` +
  `else json_build_object('name', "f"."guest_name", 'note', "f"."guest_note") end` +
  `) order by ${order}))::text as "files" ${LISTED_FROM} where ${where}`;

const FILES_SELECT =
  `select ${FILE_COLUMNS}, "f"."guest_name" as "guestName", "f"."guest_note" as "guestNote", ` +
  `"r"."id" as "listedRequestId", "r"."title" as "requestTitle" ${LISTED_FROM}`;

const MIME = '"f"."mime_type"';

/** Each kind but "other" as a condition on the MIME type, with the "Code" kind's types. */
function kindConditions(codeTypes: readonly string[]): Record<Exclude<FileKind, 'other'>, string> {
  /** Code: source, scripts, style sheets, markup and data formats (services/file-types.ts, ADR 0064). */
  const code = `${MIME} in (${codeTypes.map((type) => `'${type}'`).join(', ')})`;
  /** Documents: text, PDF, and the office formats (Microsoft's and OpenDocument), by MIME type; not code. */
  const documents =
    `((${MIME} like 'text/%' or ${MIME} in ('application/pdf', 'application/rtf', 'application/msword', ` +
    `'application/vnd.ms-excel', 'application/vnd.ms-powerpoint', 'application/epub+zip') ` +
    `or ${MIME} like 'application/vnd.openxmlformats-officedocument.%' or ${MIME} like 'application/vnd.oasis.opendocument.%') ` +
    `and not ${code})`;
  // Types are stored in lower case (services/file-types.ts), so LIKE's case rules never matter here.
  return {
    images: `${MIME} like 'image/%'`,
    video: `${MIME} like 'video/%'`,
    audio: `${MIME} like 'audio/%'`,
    documents,
    code,
  };
}

/**
 * Each order, its id breaking ties so that every page boundary is exact (keyset pagination):
 * `after` selects what comes after a cursor's file, given `params(key, id)`.
 */
const SORTS: Record<FileSort, { order: string; after: string; params: (key: SortKey, id: string) => SqlValue[] }> = {
  newest: {
    order: '"f"."created_at" desc, "f"."id" desc',
    after: '("f"."created_at" < ? or ("f"."created_at" = ? and "f"."id" < ?))',
    params: (key, id) => [new Date(key), new Date(key), id],
  },
  oldest: {
    order: '"f"."created_at" asc, "f"."id" asc',
    after: '("f"."created_at" > ? or ("f"."created_at" = ? and "f"."id" > ?))',
    params: (key, id) => [new Date(key), new Date(key), id],
  },
  size: {
    order: '"f"."size" desc, "f"."id" desc',
    after: '("f"."size" < ? or ("f"."size" = ? and "f"."id" < ?))',
    params: (key, id) => [key, key, id],
  },
  // A to Z in any case first, then the exact name, so that "apple" and "Apple" have one place each.
  name: {
    order: 'lower("f"."original_name") asc, "f"."original_name" asc, "f"."id" asc',
    after:
      '(lower("f"."original_name") > lower(cast(? as text)) or (lower("f"."original_name") = lower(cast(? as text)) and ' +
      '("f"."original_name" > ? or ("f"."original_name" = ? and "f"."id" > ?))))',
    params: (key, id) => [key, key, key, key, id],
  },
};

/**
 * The list's statements, given the types of the "Code" kind (services/file-types.ts, ADR 0064):
 * the kinds' conditions are written once, not on each request.
 */
export function fileListStatements(codeTypes: readonly string[]) {
  const kinds = kindConditions(codeTypes);

  /** The filters as SQL after `where "f"."user_id" = ?`, and their parameters. */
  function listFilters(
    filters: FileListFilters,
    postgres: boolean,
    ownerId: string,
  ): { where: string; params: SqlValue[] } {
    let where = '"f"."user_id" = ?';
    const params: SqlValue[] = [ownerId];
    if (filters.q !== null) {
      const pattern = `%${filters.q.replace(/[\\%_]/g, '\\$&')}%`;
      if (postgres) {
        // A substring in any case: ILIKE folds every letter the collation knows.
        where += ' and "f"."original_name" ilike ? escape \'\\\'';
        params.push(pattern);
      } else {
        // SQLite's LIKE ignores the case of ASCII letters. The names are matched in the index on
        // (user_id, original_name), which holds them (no row is read for a name that does not
        // match), and only the matches' rows are read, by rowid within this one statement; the
        // unary + keeps SQLite from reading all the user's rows through the other index instead
        // (ADR 0042: 100,000 files searched in a third of the time).
        where =
          '+"f"."user_id" = ? and "f"."rowid" in ' +
          '(select "n"."rowid" from "files" "n" where "n"."user_id" = ? and "n"."original_name" like ? escape \'\\\')';
        params.push(ownerId, pattern);
      }
    }
    if (filters.type !== null) {
      where +=
        filters.type === 'other' ? ` and not (${Object.values(kinds).join(' or ')})` : ` and ${kinds[filters.type]}`;
    }
    return { where, params };
  }

  return {
    /**
     * The owner's files in the filters' order, as the JSON text of the API's `files` array,
     * written by the database itself (PostgreSQL: the whole array; SQLite: each file's object,
     * joined here), not 10,000 rows turned into objects and then into text (which, with its
     * garbage, cost twice the bare SELECT + JSON; ADR 0020).
     */
    async selectJson(sql: DirectSql, postgres: boolean, filters: FileListFilters, ownerId: string): Promise<string> {
      const { where, params } = listFilters(filters, postgres, ownerId);
      const { order } = SORTS[filters.sort];
      if (postgres) {
        const [row] = await sql.select<{ files: string | null }>(filesJsonPostgres(where, order), params);
        return row?.files ?? '[]';
      }
      // SQLite writes each file's object; the array is joined here: SQLite's group_concat of
      // 10,000 objects in order took twice as long as the objects themselves (docs/performance.md).
      const rows = await sql.select<{ file: string }>(filesJsonSqlite(where, order), params);
      let json = '[';
      for (let i = 0; i < rows.length; i++) json += i === 0 ? rows[i].file : `,${rows[i].file}`;
      return `${json}]`;
    },

    /** Up to `limit` of the owner's files in the filters' order, after the cursor's file (`after`) if any. */
    selectPage(
      sql: DirectSql,
      postgres: boolean,
      filters: FileListFilters,
      ownerId: string,
      after: { key: SortKey; id: string } | null,
      limit: number,
    ): Promise<ListedFileRow[]> {
      const sort = SORTS[filters.sort];
      const { where, params } = listFilters(filters, postgres, ownerId);
      return sql.select<ListedFileRow>(
        `${FILES_SELECT} where ${where}${after ? ` and ${sort.after}` : ''} order by ${sort.order} limit ?`,
        [...params, ...(after ? sort.params(after.key, after.id) : []), limit],
      );
    },
  };
}
