// Every rule about files: who may see, add and remove them, how they are named and stored.
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { withoutUnsafeCharacters } from '../utilities/characters';
import type { AuthUser, ServiceContext } from '../context';
import { FileSchema, type StoredFile } from '../db/entities/file.entity';
import { AppError } from '../utilities/errors';
import { pooledRandomBytes } from '../utilities/random-pool';
import { fileIdSchema, filePageSchema, firstIssue } from '../schemas';
import { fileLinkChanged } from '../db/collection-versions';
import {
  FILE_KINDS,
  FILE_SORTS,
  type FileListFilters,
  type FileSort,
  fileListStatements,
  type ListedFileRow,
  type SortKey,
} from '../db/file-list';
import { insertFile, selectFileById } from '../db/files';
import { QUOTA_EXCEEDED, QuotaHold } from './quotas';
import { CODE_TYPES, fileTypeOf } from './file-types';
import { requireUser } from './guards';
import { quotaExceededError } from './storage-usage';
import { storageFaultAsAppError } from './storage-errors';
import { changedShareColumns, GONE_MESSAGES, goneReason, newShareColumns } from './share-settings';
import { recordActivity } from './activity';

/** The file object of the API (docs/api.md). */
export interface FileDto {
  id: string;
  userId: string;
  originalName: string;
  mimeType: string;
  size: number;
  storedName: string;
  createdAt: string;
  /** When the share link stops working (ISO-8601), or null. */
  expiresAt: string | null;
  /** Downloads the link allows in all, or null for no limit. */
  maxDownloads: number | null;
  /** Downloads started so far by others than the owner. */
  downloads: number;
  /** Looks at the share page by others than the owner; its own preview is no download (ADR 0066). */
  views: number;
  /** Whether the link asks for a password (the password and its hash never leave the service). */
  hasPassword: boolean;
}

/**
 * A file as the list shows it (`GET /api/v1/files`, My files): the file object, and where a guest's
 * file came from (ADR 0048).
 */
interface ListedFileDto extends FileDto {
  /** The file request it came through; null for the owner's own uploads, or once the request is deleted. */
  request: { id: string; title: string } | null;
  /** The name and note the guest left (each null when left empty); null when the guest left neither, or for the owner's own. */
  receivedFrom: { name: string | null; note: string | null } | null;
}

export interface NewUpload {
  /** The name as the uploader sent it. */
  originalName: string;
  /** The content type as the uploader sent it. */
  mimeType: string;
  content: Readable;
  /** Share settings sent with the upload (multipart fields before the file): validated here. */
  settings?: Record<string, string>;
  /**
   * Resolves once the request that carried the content is known to be good (not malformed, not
   * past a limit, not aborted); rejects with an AppError otherwise. Called once the content has
   * arrived, before it is committed to the store (and so before the record is made).
   */
  bodyAccepted?: () => Promise<void>;
  /** About how long the content is, when the request said (its Content-Length): the quota holds it up front. */
  expectedBytes?: number;
  /** A guest's file sent through a file request (ADR 0048): recorded with the request, the guest's name and note. */
  received?: { requestId: string; guestName: string | null; guestNote: string | null };
  /** The new file's id when the caller chose it beforehand (a file request's upload names it in its reservation). */
  fileId?: string;
}

export function toFileDto(file: StoredFile): FileDto {
  return {
    id: file.id,
    userId: file.userId,
    originalName: file.originalName,
    mimeType: file.mimeType,
    // Plain rows skip the entity's type conversion: PostgreSQL hands bigint back as text.
    size: Number(file.size),
    storedName: file.storedName,
    createdAt: new Date(file.createdAt).toISOString(),
    expiresAt: file.expiresAt === null ? null : new Date(file.expiresAt).toISOString(),
    maxDownloads: file.maxDownloads === null ? null : Number(file.maxDownloads),
    downloads: Number(file.downloads),
    views: Number(file.views),
    hasPassword: file.passwordHash !== null,
  };
}

function toListedFileDto(row: ListedFileRow): ListedFileDto {
  const name = row.guestName ?? null;
  const note = row.guestNote ?? null;
  return {
    ...toFileDto(row),
    request: row.listedRequestId === null ? null : { id: row.listedRequestId, title: row.requestTitle ?? '' },
    receivedFrom: name === null && note === null ? null : { name, note },
  };
}

/** The public share address of a file. */
export function shareUrl(ctx: Pick<ServiceContext, 'linkBase'>, fileId: string): string {
  return `${ctx.linkBase}/f/${fileId}`;
}

/**
 * Stores an upload: content first (atomically, streamed), the record only once the content
 * is in place, and the content removed again if the record cannot be written (ADR 0010).
 */
export async function uploadFile(ctx: ServiceContext, upload: NewUpload): Promise<FileDto> {
  const owner = requireUser(ctx);
  // Settings first: a bad value is refused before a byte is stored.
  const share = await newShareColumns(ctx, upload.settings ?? {});
  const id = upload.fileId ?? newFileId();
  const storedName = id + storedExtension(cleanFileName(upload.originalName));
  // The upload's row until the record is made: its sign of life for the storage sweep, naming
  // the content it writes (ADR 0029), and with a quota the bytes held as they arrive.
  const hold = await QuotaHold.forUpload(ctx, owner.id, storedName);
  try {
    const content = hold.metered(upload.content, upload.expectedBytes);
    return await storeAndRecord(ctx, owner, { ...upload, content }, share, hold, { id, storedName });
  } catch (error) {
    if (!hold?.exceeded) throw error;
    // Said once this upload's own hold is given back: the room it reports is what a retry finds.
    await hold.release();
    throw await quotaExceededError(ctx, owner.id);
  } finally {
    await hold?.release();
  }
}

async function storeAndRecord(
  ctx: ServiceContext,
  owner: AuthUser,
  upload: NewUpload,
  share: Awaited<ReturnType<typeof newShareColumns>>,
  hold: QuotaHold,
  { id, storedName }: { id: string; storedName: string },
): Promise<FileDto> {
  const originalName = cleanFileName(upload.originalName);

  let size: number;
  let crc32: number;
  let firstBytes: Buffer;
  try {
    // The content becomes visible only once its request is known to be good: a body broken after
    // the file part never leaves content behind (nor a put-then-delete on a bucket).
    ({ size, crc32, firstBytes } = await ctx.store.write(storedName, upload.content, {
      maxBytes: ctx.config.maxUploadBytes,
      beforeCommit: upload.bodyAccepted,
    }));
  } catch (error) {
    if (hold?.exceeded) throw new AppError('PAYLOAD_TOO_LARGE', QUOTA_EXCEEDED);
    throw storageFaultAsAppError(error);
  }

  // Found from the first bytes the store saw on their way in, and the name (ADR 0064).
  const mimeType = await fileTypeOf({
    name: originalName,
    declared: upload.mimeType,
    firstBytes,
    whole: firstBytes.length === size,
  });
  const { expiresAfterMs, ...columns } = share;
  const createdAt = ctx.clock.now();
  const file: StoredFile = {
    id,
    userId: owner.id,
    originalName,
    mimeType,
    size,
    storedName,
    createdAt: new Date(createdAt),
    downloads: 0,
    views: 0,
    ...columns,
    // A relative expiry counts from now, when the file is made: a slow upload must not arrive
    // with its link expired already (as a resumable upload's counts from its last byte).
    expiresAt: expiresAfterMs === null ? columns.expiresAt : new Date(createdAt + expiresAfterMs),
  };
  try {
    // One INSERT, written out (db/files.ts): nothing else changes here.
    await insertFile(ctx.sql, {
      ...file,
      crc32,
      requestId: upload.received?.requestId ?? null,
      guestName: upload.received?.guestName ?? null,
      guestNote: upload.received?.guestNote ?? null,
    });
  } catch (error) {
    await ctx.store.delete(storedName);
    throw error;
  }
  ctx.log.info({ fileId: id, size }, 'file uploaded');
  return toFileDto(file);
}

// The list's statements, with the types of the "Code" kind (file-types.ts, ADR 0064).
const FILE_LIST = fileListStatements(CODE_TYPES);

/**
 * The caller's files, newest first, as the JSON text of the API's `files` array, written by the
 * database itself (db/file-list.ts).
 * Same objects as toListedFileDto makes (tests/api/pagination.test.ts compares them with each
 * file's upload and page).
 */
export async function listFilesJson(ctx: ServiceContext, input: unknown = {}): Promise<string> {
  const owner = requireUser(ctx);
  const filters = parseListFilters(input);
  return FILE_LIST.selectJson(ctx.sql, ctx.config.database.dialect === 'postgresql', filters, owner.id);
}

/** Longer than any name (255 characters, each up to two UTF-16 units), short of a cost. */
const MAX_QUERY_LENGTH = 1000;

/** `?q=&type=&sort=` of the list (a blank one is as if left out). */
const fileListFiltersSchema = z.object({
  q: z
    .string({ invalid_type_error: 'q must be a string' })
    .max(MAX_QUERY_LENGTH, `q must be at most ${MAX_QUERY_LENGTH} characters`)
    .optional()
    .openapi({ description: 'Only files whose name contains this, in any case.', example: 'holiday' }),
  type: z
    .enum(FILE_KINDS, { errorMap: () => ({ message: `type must be one of ${FILE_KINDS.join(', ')}` }) })
    .optional()
    .openapi({ description: 'Only files of this kind, by MIME type.' }),
  sort: z
    .enum(FILE_SORTS, { errorMap: () => ({ message: `sort must be one of ${FILE_SORTS.join(', ')}` }) })
    .optional()
    .openapi({ description: 'newest (the default), oldest, name (A to Z) or size (largest first).' }),
});

/** `?limit=&cursor=` and the filters: a cursor of the name order carries a name, so it may be longer. */
export const fileListPageSchema = filePageSchema
  .extend({ cursor: z.string().max(4000, 'Invalid cursor').optional() })
  .merge(fileListFiltersSchema);

/** A blank value of a form left empty is no filter at all. */
function withoutBlanks(input: unknown): unknown {
  if (typeof input !== 'object' || input === null) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== '' && value !== undefined));
}

function parseListFilters(input: unknown): FileListFilters {
  const parsed = fileListFiltersSchema.safeParse(withoutBlanks(input));
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  // Names keep no control characters (cleanFileName): nor does a search for one (PostgreSQL refuses NUL).
  const q = parsed.data.q === undefined ? '' : withoutUnsafeCharacters(parsed.data.q, 'line');
  return { q: q === '' ? null : q, type: parsed.data.type ?? null, sort: parsed.data.sort ?? 'newest' };
}

/** Each order's key of a file, as its cursor carries it (the id breaks ties: db/file-list.ts). */
const SORT_KEYS: Record<FileSort, (file: StoredFile) => SortKey> = {
  newest: (file) => new Date(file.createdAt).getTime(),
  oldest: (file) => new Date(file.createdAt).getTime(),
  size: (file) => Number(file.size),
  name: (file) => file.originalName,
};

export interface FilePage {
  files: ListedFileDto[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * One page of the caller's files, newest first or in another order, narrowed by name and type
 * (keyset pagination: each page costs the same, however far in). The cursor is opaque to
 * clients: the last file's place in the order (its date, size or name) and its id.
 */
export async function listFilesPage(ctx: ServiceContext, input: unknown): Promise<FilePage> {
  const owner = requireUser(ctx);
  const parsed = fileListPageSchema.safeParse(withoutBlanks(input));
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { limit, cursor } = parsed.data;
  const filters = parseListFilters(input);
  const after = cursor === undefined ? null : decodeCursor(cursor, filters.sort);
  const postgres = ctx.config.database.dialect === 'postgresql';
  const rows = await FILE_LIST.selectPage(ctx.sql, postgres, filters, owner.id, after, limit + 1);
  const files = rows.slice(0, limit);
  const last = files[files.length - 1];
  return {
    files: files.map(toListedFileDto),
    nextCursor: rows.length > limit && last ? encodeCursor(last, filters.sort) : null,
  };
}

const CURSOR_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Newest first: the date and id as before; another order: its name, the key and the id, as JSON. */
function encodeCursor(file: StoredFile, sort: FileSort): string {
  const key = SORT_KEYS[sort](file);
  const text = sort === 'newest' ? `${key}.${file.id}` : JSON.stringify([sort, key, file.id]);
  return Buffer.from(text).toString('base64url');
}

/** A cursor of this order (one of another order is as bad as one made up). */
function decodeCursor(cursor: string, sort: FileSort): { key: SortKey; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const invalid = new AppError('BAD_REQUEST', 'Invalid cursor');
  if (sort === 'newest') {
    const match = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(text);
    if (!match) throw invalid;
    return { key: Number(match[1]), id: match[2] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== sort) throw invalid;
  const [, key, id] = parsed as [unknown, unknown, unknown];
  if (typeof id !== 'string' || !CURSOR_ID.test(id)) throw invalid;
  const wanted = sort === 'name' ? 'string' : 'number';
  if (typeof key !== wanted || (typeof key === 'number' && !(Number.isSafeInteger(key) && key >= 0))) throw invalid;
  if (typeof key === 'string' && key.length > MAX_QUERY_LENGTH) throw invalid;
  return { key: key as SortKey, id };
}

/** The caller's own file (`GET /files/<id>`, the delete confirmation): 404 unknown, 403 someone else's. */
export async function getOwnFile(ctx: ServiceContext, fileId: string): Promise<FileDto> {
  return toFileDto(await requireOwnFile(ctx, fileId));
}

async function requireOwnFile(ctx: ServiceContext, fileId: string): Promise<StoredFile> {
  const owner = requireUser(ctx);
  const file = await findFile(ctx, fileId);
  if (!file) throw new AppError('NOT_FOUND', 'File not found');
  if (file.userId !== owner.id) throw new AppError('FORBIDDEN', 'Forbidden');
  return file;
}

/**
 * Deletes one of the caller's files: the record, then the content (an orphan is swept at start).
 * Returns what it was: the page names it in its notice.
 */
export async function deleteFile(ctx: ServiceContext, fileId: string): Promise<FileDto> {
  const owner = requireUser(ctx);
  const file = await requireOwnFile(ctx, fileId);
  // A concurrent delete of the same file may have won: only the one that removed the row succeeds.
  const removed = await ctx.em.nativeDelete(FileSchema, { id: file.id, userId: owner.id });
  if (removed === 0) throw new AppError('NOT_FOUND', 'File not found');
  try {
    await ctx.store.delete(file.storedName);
  } catch (error) {
    // The file is gone for everyone already (no record, no link): the content without a record
    // is removed by the housekeeping sweep, so this is not the user's failure to report.
    ctx.log.warn(
      { err: error, fileId: file.id, storedName: file.storedName },
      'content not removed; left to the sweep',
    );
  }
  ctx.log.info({ fileId: file.id }, 'file deleted');
  await recordActivity(ctx, { action: 'file.deleted', target: { kind: 'file', id: file.id, name: file.originalName } });
  return toFileDto(file);
}

/**
 * Changes the share settings of one of the caller's files (only the keys sent; null clears).
 * A link that has already expired or used up its downloads stays gone.
 */
export function updateShareSettings(ctx: ServiceContext, fileId: string, input: unknown): Promise<FileDto> {
  return changeFile(ctx, fileId, { settings: input });
}

/**
 * Renames one of the caller's files: the name its pages show and its downloads carry. The
 * content, its stored name, its type and its link stay as they are (ADR 0040).
 */
export function renameFile(ctx: ServiceContext, fileId: string, name: unknown): Promise<FileDto> {
  return changeFile(ctx, fileId, { name });
}

/**
 * A change of one of the caller's files as the API's PATCH sends it: `originalName` renames it,
 * the other keys are its share settings; either may come alone. Nothing changes unless all of it is good.
 */
export function updateFile(ctx: ServiceContext, fileId: string, input: unknown): Promise<FileDto> {
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !Object.hasOwn(input, 'originalName'))
    return changeFile(ctx, fileId, { settings: input });
  const { originalName, ...settings } = input as Record<string, unknown>;
  return changeFile(ctx, fileId, {
    name: originalName,
    // A rename alone touches no setting, so an expired link does not stop it.
    settings: Object.keys(settings).length > 0 ? settings : undefined,
  });
}

async function changeFile(
  ctx: ServiceContext,
  fileId: string,
  change: { name?: unknown; settings?: unknown },
): Promise<FileDto> {
  const owner = requireUser(ctx);
  const renaming = Object.hasOwn(change, 'name');
  // Checked before the file is looked at: a bad name is a 400 whoever asks.
  const originalName = renaming ? newFileName(change.name) : undefined;
  const withSettings = change.settings !== undefined || !renaming;
  // A new limit is checked against the downloads so far: this instance's count in them.
  if (withSettings) await ctx.downloads.flush();
  const file = await findFile(ctx, fileId);
  if (!file) throw new AppError('NOT_FOUND', 'File not found');
  if (file.userId !== owner.id) throw new AppError('FORBIDDEN', 'Forbidden');
  const changes: Partial<Pick<StoredFile, 'originalName' | 'expiresAt' | 'maxDownloads' | 'passwordHash'>> = {};
  if (withSettings) {
    const gone = goneReason(file, ctx.clock.now());
    if (gone) throw new AppError('GONE', GONE_MESSAGES[gone]);
    Object.assign(changes, await changedShareColumns(ctx, file, change.settings));
  }
  if (originalName !== undefined && originalName !== file.originalName) changes.originalName = originalName;
  if (Object.keys(changes).length > 0) {
    const updated = await ctx.em.transactional(async (em) => {
      // Only while the file is still there: a concurrent delete may have won.
      const count = await em.nativeUpdate(FileSchema, { id: file.id, userId: owner.id }, changes);
      // Its collections' archives leave out a file whose own link is gone (ADR 0055).
      if (count > 0 && ('expiresAt' in changes || 'maxDownloads' in changes)) await fileLinkChanged(em, file.id);
      return count;
    });
    if (updated === 0) throw new AppError('NOT_FOUND', 'File not found');
    ctx.log.info({ fileId: file.id, changed: Object.keys(changes) }, 'file changed');
    const settings = Object.keys(changes).filter((column) => column !== 'originalName');
    if (settings.length > 0)
      await recordActivity(ctx, {
        action: 'share-settings.changed',
        target: { kind: 'file', id: file.id, name: file.originalName },
        detail: settings.map((column) => (column === 'passwordHash' ? 'password' : column)).join(', '),
      });
  }
  const changed = await findFile(ctx, file.id);
  if (!changed) throw new AppError('NOT_FOUND', 'File not found');
  return toFileDto(changed);
}

/**
 * A new name for a file, under the rules of an upload's name (cleanFileName): control and bidi
 * characters dropped, spaces trimmed, a name too long shortened to its first characters and its
 * extension. Where an upload without a name is called "file", a rename to nothing is refused.
 */
function newFileName(name: unknown): string {
  if (typeof name !== 'string') throw new AppError('BAD_REQUEST', 'originalName must be a string');
  if (withoutUnsafeCharacters(name, 'line') === '') throw new AppError('BAD_REQUEST', 'originalName must not be empty');
  return cleanFileName(name);
}

/** Any file by id, as its row; null when there is none. */
export function findFile(ctx: ServiceContext, fileId: string): Promise<StoredFile | null> {
  return isFileId(fileId) ? selectFileById(ctx.sql, fileId) : Promise.resolve(null);
}

/** Whether `fileId` could be one of ours: one that cannot never reaches the database. */
export function isFileId(fileId: string): boolean {
  return fileIdSchema.safeParse(fileId).success;
}

const FILE_ID_BYTES = 16;

/** 128 random bits, URL-safe: share links are public, so they must not be guessable. */
export function newFileId(): string {
  return pooledRandomBytes(FILE_ID_BYTES).toString('base64url');
}

/** Exactly what uploadFile names content: a 22-character id and an optional extension. */
const STORED_NAME = /^[A-Za-z0-9_-]{22}(\.[A-Za-z0-9]+)?$/;

/** Whether `name` has the exact shape of a stored name this service makes (the sweep touches nothing else). */
export function isStoredName(name: string): boolean {
  return STORED_NAME.test(name);
}

/**
 * The extension kept in the stored name: a dot followed by ASCII letters and digits only
 * (case kept); anything else is dropped, so a name can never climb out of the upload dir.
 * A dot that begins the name (".bashrc", "dir/.env") starts a hidden file's name, not an
 * extension, as for Node's `path.extname` and Python's `splitext`.
 */
export function storedExtension(originalName: string): string {
  const match = /[^/\\]\.([A-Za-z0-9]+)$/.exec(originalName);
  return match ? `.${match[1]}` : '';
}

const MAX_NAME_LENGTH = 255;

/** An extension worth keeping when a long name is shortened: a dot and up to 16 characters, no dot or space. */
const KEPT_EXTENSION = /\.[^.\s]{1,16}$/u;

/**
 * The uploader's name without the characters no line of text keeps (control and bidi
 * characters: server/utilities/characters.ts, ADR 0059), capped at MAX_NAME_LENGTH characters
 * (code points); never empty. A longer name loses the end of its stem, not its extension: the
 * download keeps its type, and the stored name its extension.
 */
export function cleanFileName(name: string): string {
  const cleaned = withoutUnsafeCharacters(name, 'line');
  const characters = Array.from(cleaned);
  if (characters.length <= MAX_NAME_LENGTH) return cleaned || 'file';
  const extension = Array.from(KEPT_EXTENSION.exec(cleaned)?.[0] ?? '');
  const stem = characters.slice(0, characters.length - extension.length);
  return (
    stem
      .slice(0, MAX_NAME_LENGTH - extension.length)
      .join('')
      .trimEnd() + extension.join('') || 'file'
  );
}
