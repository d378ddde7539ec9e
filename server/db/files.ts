// Statements on the `files` table beyond what the ORM's entity methods say, and those that every
// small request runs (a share link's file, an upload's record), written out (direct-sql.ts).
import { raw } from '@mikro-orm/core';
import type { DirectSql } from './direct-sql';
import type { StoredFile } from './entities/file.entity';

/**
 * The two filters of the files whose link is gone (ADR 0014, ADR 0056): expired at `now`, or used
 * up its downloads with the last claim on them older than `claimsFrom`. Each is read through its
 * own index.
 */
export function goneFileFilters(now: Date, claimsFrom: Date) {
  return [
    { expiresAt: { $lte: now } },
    {
      maxDownloads: { $ne: null },
      downloads: { $gte: raw('max_downloads') },
      $or: [{ lastDownloadAt: null }, { lastDownloadAt: { $lte: claimsFrom } }],
    },
  ];
}

/** The columns of a file under the entity's names, for statements written out. */
export const FILE_COLUMNS =
  '"f"."id" as "id", "f"."user_id" as "userId", "f"."original_name" as "originalName", "f"."mime_type" as "mimeType", ' +
  '"f"."size" as "size", "f"."stored_name" as "storedName", "f"."created_at" as "createdAt", "f"."expires_at" as "expiresAt", ' +
  '"f"."max_downloads" as "maxDownloads", "f"."downloads" as "downloads", "f"."views" as "views", ' +
  '"f"."password_hash" as "passwordHash"';

/** A row selected with FILE_COLUMNS as the entity types it (dates and numbers as each dialect returns them). */
function fileFromRow(row: Record<keyof StoredFile, unknown>): StoredFile {
  return {
    id: row.id as string,
    userId: row.userId as string,
    originalName: row.originalName as string,
    mimeType: row.mimeType as string,
    size: Number(row.size),
    storedName: row.storedName as string,
    createdAt: new Date(row.createdAt as Date | number),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt as Date | number),
    maxDownloads: row.maxDownloads === null ? null : Number(row.maxDownloads),
    downloads: Number(row.downloads),
    views: Number(row.views),
    passwordHash: row.passwordHash as string | null,
  };
}

/** The one file a statement selects by id (`?`, with FILE_COLUMNS on `"f"`), as its row; null when it selects none. */
async function selectOneFile(sql: DirectSql, statement: string, fileId: string): Promise<StoredFile | null> {
  const [row] = await sql.select<Record<keyof StoredFile, unknown>>(statement, [fileId]);
  return row ? fileFromRow(row) : null;
}

const FILE_BY_ID = `select ${FILE_COLUMNS} from "files" "f" where "f"."id" = ?`;

/** Any file by id; null when there is none. */
export function selectFileById(sql: DirectSql, fileId: string): Promise<StoredFile | null> {
  return selectOneFile(sql, FILE_BY_ID, fileId);
}

// A disabled account's links are off with it, and back when it is enabled (ADR 0018).
const SHARED_FILE_BY_ID =
  `select ${FILE_COLUMNS} from "files" "f" join "users" "u" on "u"."id" = "f"."user_id" ` +
  'where "f"."id" = ? and "u"."disabled_at" is null';

/** The file behind a share link, in one query: null when there is none or its owner is disabled. */
export function selectSharedFileById(sql: DirectSql, fileId: string): Promise<StoredFile | null> {
  return selectOneFile(sql, SHARED_FILE_BY_ID, fileId);
}

const INSERT_FILE =
  'insert into "files" ("id", "user_id", "original_name", "mime_type", "size", "stored_name", "created_at", "expires_at", ' +
  '"max_downloads", "downloads", "password_hash", "crc32", "request_id", "guest_name", "guest_note") ' +
  'values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** A new file's row, with its content's CRC-32 and, for a guest's file, its request, name and note. */
type NewFileRow = StoredFile & {
  crc32: number;
  requestId: string | null;
  guestName: string | null;
  guestNote: string | null;
};

/** Records a new file in one INSERT: nothing else changes when a file is made. */
export async function insertFile(sql: DirectSql, file: NewFileRow): Promise<void> {
  await sql.change(INSERT_FILE, [
    file.id,
    file.userId,
    file.originalName,
    file.mimeType,
    file.size,
    file.storedName,
    file.createdAt,
    file.expiresAt,
    file.maxDownloads,
    file.downloads,
    file.passwordHash,
    file.crc32,
    file.requestId,
    file.guestName,
    file.guestNote,
  ]);
}
