// File requests (ADR 0048): a link, `/r/<id>`, through which someone without an account sends
// files into a user's space. What arrives is the owner's files (their list, quota, share
// controls), marked with the request and the guest's name and note.
//
// The request's limits are exact under concurrency: before a byte is stored, each guest upload
// takes a place among the request's files, a row of `file_request_uploads` written under a lock
// on the request's row (PostgreSQL: FOR UPDATE; SQLite: its single writer). That row then holds
// the bytes the upload has received against the request's byte limit, as they arrive and under
// the same lock, as an upload's hold does against its owner's quota (quotas.ts). The owner's
// quota applies on top, through the owner's own upload path (uploadFile).
import { randomUUID } from 'node:crypto';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import type { EntityManager } from '@mikro-orm/knex';
import { hashPassword } from '../auth/passwords';
import { type TextKind, withoutUnsafeCharacters } from '../characters';
import type { AuthUser, ServiceContext } from '../context';
import { FileRequestSchema, FileRequestUploadSchema, type StoredFileRequest } from '../db/entities/file-request.entity';
import { FileSchema } from '../db/entities/file.entity';
import { ResumableUploadSchema, type ResumableUpload } from '../db/entities/resumable-upload.entity';
import { AppError } from '../errors';
import { pooledRandomBytes } from '../random-pool';
import { firstIssue, newFileRequestSchema } from '../schemas';
import { GONE_REQUEST_MESSAGES, requireRequestTakesUpload, stoppedState, uploadRefusal } from './file-request-stops';
import { cleanFileName, type FileDto, type NewUpload, newFileId, uploadFile } from './files';
import { requireUser } from './guards';
import {
  createResumableUpload,
  discardUploadsOf,
  removeStoppedRequestUploads,
  requireUnexpired,
} from './resumable-uploads';
import { admitGuestUpload } from './login-throttle';
import { quotaOfUser, STALE_RESERVATION_MS, withAvailableBytes } from './quotas';
import { grantForPassword, passesSharePassword, type ShareProof } from './share-access';

/** The request object of the API (docs/api.md). */
export interface FileRequestDto {
  id: string;
  /** The link to give guests. */
  url: string;
  title: string;
  message: string;
  createdAt: string;
  expiresAt: string | null;
  maxFiles: number | null;
  maxBytes: number | null;
  hasPassword: boolean;
  requireName: boolean;
  /** open; closed (by its owner); expired; full (its files or bytes used up). */
  state: FileRequestState;
  filesReceived: number;
  bytesReceived: number;
  /** Files received since the owner last opened the request's list. */
  newFiles: number;
}

export type FileRequestState = 'open' | 'closed' | 'expired' | 'full';

/** A file that arrived through a request, as its owner sees it. */
export interface ReceivedFileDto {
  id: string;
  originalName: string;
  mimeType: string;
  size: number;
  createdAt: string;
  guestName: string | null;
  guestNote: string | null;
  /** Whether it arrived after the owner last looked. */
  isNew: boolean;
}

/** What a guest is told of a file they sent: its name and size, never its link or its owner. */
export interface SentFileDto {
  originalName: string;
  size: number;
}

/** What a guest sees of a request: never its owner, nor what others sent. */
interface GuestViewDto {
  id: string;
  title: string;
  message: string;
  expiresAt: string | null;
  requireName: boolean;
  /** Files still accepted; null: no limit. */
  filesLeft: number | null;
  /** Bytes still accepted (the request's limit, the owner's quota and the largest upload, whichever is smallest); null: no limit. */
  bytesLeft: number | null;
  /** The limit `bytesLeft` is what is left of (the request's or the owner's quota): its units are the ones said (ADR 0065). */
  bytesLeftOf: number | null;
  /** The largest one file (MAX_UPLOAD_SIZE). */
  maxUploadBytes: number;
}

/** A guest's name and note: text, shown as text, trimmed to these lengths. */
const GUEST_NAME_MAX = 100;
const GUEST_NOTE_MAX = 1000;

const DEFAULT_EXPIRY_SECONDS = 7 * 86400;

function withoutBlanks(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== '' && value !== undefined));
}

/** Creates a request of the caller's. */
export async function createFileRequest(ctx: ServiceContext, input: unknown): Promise<FileRequestDto> {
  const owner = requireUser(ctx);
  const parsed = newFileRequestSchema.safeParse(withoutBlanks(input));
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { title, message, expiresIn, expiresAt, maxFiles, maxBytes, password, requireName } = parsed.data;
  const now = ctx.clock.now();
  let expires: Date | null;
  if (expiresAt !== undefined) {
    expires = new Date(expiresAt);
    if (expires.getTime() <= now) throw new AppError('BAD_REQUEST', 'expiresAt must be in the future');
  } else if (expiresIn === 'never') expires = null;
  else expires = new Date(now + (expiresIn ?? DEFAULT_EXPIRY_SECONDS) * 1000);
  const request: StoredFileRequest = {
    id: pooledRandomBytes(16).toString('base64url'),
    userId: owner.id,
    title,
    message: (message ?? '').trim(),
    createdAt: new Date(now),
    expiresAt: expires,
    maxFiles: maxFiles ?? null,
    maxBytes: maxBytes ?? null,
    passwordHash: password ? await hashPassword(password) : null,
    requireName: requireName ?? false,
    closedAt: null,
    seenAt: new Date(now),
  };
  await ctx.em.insert(FileRequestSchema, request);
  ctx.log.info({ requestId: request.id }, 'file request created');
  return toDto(ctx, request, { files: 0, bytes: 0, newFiles: 0 });
}

interface Received {
  files: number;
  bytes: number;
  newFiles: number;
}

function toDto(ctx: ServiceContext, request: StoredFileRequest, received: Received): FileRequestDto {
  return {
    id: request.id,
    url: requestUrl(ctx, request.id),
    title: request.title,
    message: request.message,
    createdAt: new Date(request.createdAt).toISOString(),
    expiresAt: request.expiresAt === null ? null : new Date(request.expiresAt).toISOString(),
    maxFiles: request.maxFiles === null ? null : Number(request.maxFiles),
    maxBytes: request.maxBytes === null ? null : Number(request.maxBytes),
    hasPassword: request.passwordHash !== null,
    requireName: Boolean(request.requireName),
    state: stateOf(request, received, ctx.clock.now()),
    filesReceived: received.files,
    bytesReceived: received.bytes,
    newFiles: received.newFiles,
  };
}

/** The public address of a request. */
function requestUrl(ctx: Pick<ServiceContext, 'linkBase'>, requestId: string): string {
  return `${ctx.linkBase}/r/${requestId}`;
}

function stateOf(
  request: Pick<StoredFileRequest, 'closedAt' | 'expiresAt' | 'maxFiles' | 'maxBytes'>,
  received: { files: number; bytes: number },
  now: number,
): FileRequestState {
  const stopped = stoppedState(request, now);
  if (stopped) return stopped;
  if (request.maxFiles !== null && received.files >= Number(request.maxFiles)) return 'full';
  if (request.maxBytes !== null && received.bytes >= Number(request.maxBytes)) return 'full';
  return 'open';
}

/** What each of the caller's requests has received: files, bytes, and files newer than its last look. */
async function receivedOf(ctx: ServiceContext, requests: StoredFileRequest[]): Promise<Map<string, Received>> {
  const counts = new Map<string, Received>();
  if (requests.length === 0) return counts;
  const files = await ctx.em.find(
    FileSchema,
    { requestId: { $in: requests.map((request) => request.id) } },
    { fields: ['requestId', 'size', 'createdAt'], disableIdentityMap: true },
  );
  const seen = new Map(
    requests.map((request) => [request.id, request.seenAt ? new Date(request.seenAt).getTime() : 0]),
  );
  for (const file of files) {
    const id = file.requestId as string;
    const count = counts.get(id) ?? { files: 0, bytes: 0, newFiles: 0 };
    count.files += 1;
    count.bytes += Number(file.size);
    if (new Date(file.createdAt).getTime() > (seen.get(id) ?? 0)) count.newFiles += 1;
    counts.set(id, count);
  }
  return counts;
}

const NOTHING: Received = { files: 0, bytes: 0, newFiles: 0 };

/** The caller's requests, newest first, with what each has received. */
export async function listFileRequests(ctx: ServiceContext): Promise<FileRequestDto[]> {
  const owner = requireUser(ctx);
  const requests = await ctx.em.find(
    FileRequestSchema,
    { userId: owner.id },
    { orderBy: { createdAt: 'desc', id: 'desc' }, disableIdentityMap: true },
  );
  const received = await receivedOf(ctx, requests);
  return requests.map((request) => toDto(ctx, request, received.get(request.id) ?? NOTHING));
}

/** Files received through the caller's requests since they last looked at them (My files says so). */
export async function countNewRequestFiles(ctx: ServiceContext): Promise<number> {
  return (await listFileRequests(ctx)).reduce((sum, request) => sum + request.newFiles, 0);
}

async function requireOwnRequest(ctx: ServiceContext, requestId: string): Promise<StoredFileRequest> {
  const owner = requireUser(ctx);
  const request = /^[A-Za-z0-9_-]{1,64}$/.test(requestId)
    ? await ctx.em.findOne(FileRequestSchema, { id: requestId }, { disableIdentityMap: true })
    : null;
  if (!request) throw new AppError('NOT_FOUND', 'File request not found');
  if (request.userId !== owner.id) throw new AppError('FORBIDDEN', 'Forbidden');
  return request;
}

/** One of the caller's requests with the files it received, newest first. */
export async function getOwnFileRequest(
  ctx: ServiceContext,
  requestId: string,
): Promise<{ request: FileRequestDto; files: ReceivedFileDto[] }> {
  const request = await requireOwnRequest(ctx, requestId);
  const rows = await ctx.em.find(
    FileSchema,
    { requestId: request.id, userId: request.userId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, disableIdentityMap: true },
  );
  const seenAt = request.seenAt ? new Date(request.seenAt).getTime() : 0;
  const files = rows.map(
    (file): ReceivedFileDto => ({
      id: file.id,
      originalName: file.originalName,
      mimeType: file.mimeType,
      size: Number(file.size),
      createdAt: new Date(file.createdAt).toISOString(),
      guestName: file.guestName ?? null,
      guestNote: file.guestNote ?? null,
      isNew: new Date(file.createdAt).getTime() > seenAt,
    }),
  );
  const received = {
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
    newFiles: files.filter((file) => file.isNew).length,
  };
  return { request: toDto(ctx, request, received), files };
}

/** The caller has seen what arrived in all their requests until now: nothing is "new" any more. */
export async function markFileRequestsSeen(ctx: ServiceContext): Promise<void> {
  const owner = requireUser(ctx);
  await ctx.em.nativeUpdate(FileRequestSchema, { userId: owner.id }, { seenAt: new Date(ctx.clock.now()) });
}

/**
 * Closes (no more files) or reopens one of the caller's requests. Closing stops the guests'
 * uploads under way (ADR 0048): every place in the request goes, so a form's file still
 * streaming is refused before its content is committed and a resumable upload at its next step,
 * reopened or not; the resumable uploads no request is writing to go now with their bytes.
 */
export async function setFileRequestClosed(
  ctx: ServiceContext,
  requestId: string,
  closed: unknown,
): Promise<FileRequestDto> {
  if (typeof closed !== 'boolean') throw new AppError('BAD_REQUEST', 'closed must be true or false');
  const request = await requireOwnRequest(ctx, requestId);
  const closedAt = closed ? (request.closedAt ?? new Date(ctx.clock.now())) : null;
  await ctx.em.nativeUpdate(FileRequestSchema, { id: request.id }, { closedAt });
  if (closed) {
    await ctx.em.nativeDelete(FileRequestUploadSchema, { requestId: request.id });
    await removeStoppedRequestUploads(ctx, request.id);
  }
  ctx.log.info({ requestId: request.id, closed }, closed ? 'file request closed' : 'file request reopened');
  return (await getOwnFileRequest(ctx, request.id)).request;
}

/**
 * Deletes one of the caller's requests: its link stops working at once. The files it received
 * stay the owner's (with the guests' names and notes), no longer marked with the request.
 */
export async function deleteFileRequest(ctx: ServiceContext, requestId: string): Promise<void> {
  const request = await requireOwnRequest(ctx, requestId);
  await ctx.em.nativeDelete(FileRequestSchema, { id: request.id });
  await ctx.em.nativeUpdate(FileSchema, { requestId: request.id }, { requestId: null });
  // Its link stops at once, resumable uploads under way included: their rows and bytes go (a
  // request writing to one is refused at its next step, and the sweep takes what it wrote since).
  const unfinished = await ctx.em.find(
    ResumableUploadSchema,
    { requestId: request.id, finishedAt: null },
    { fields: ['id', 'storedName', 'contentState'], disableIdentityMap: true },
  );
  await ctx.em.nativeDelete(ResumableUploadSchema, { requestId: request.id, finishedAt: null });
  await discardUploadsOf(ctx, unfinished);
  ctx.log.info({ requestId: request.id }, 'file request deleted');
}

// ---------------------------------------------------------------------------------------------
// The guest's side.

/** A request as the guest's page opens it. */
type GuestAccess =
  | { kind: 'missing' }
  | { kind: 'gone'; state: Exclude<FileRequestState, 'open'>; message: string }
  | { kind: 'locked'; id: string }
  | { kind: 'open'; view: GuestViewDto };

interface OwnerRow {
  id: string;
  username: string;
  disabledAt: unknown;
}

async function findRequest(ctx: ServiceContext, requestId: string): Promise<StoredFileRequest | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(requestId)) return null;
  return ctx.em.findOne(FileRequestSchema, { id: requestId }, { disableIdentityMap: true });
}

async function ownerOf(ctx: ServiceContext, request: StoredFileRequest, em?: EntityManager): Promise<OwnerRow | null> {
  // Inside the request's lock, on its transaction's connection: a pool of waiters must not starve it.
  const transaction = em?.getTransactionContext();
  if (em && transaction) {
    const row: { id: string; username: string; disabled_at: unknown } | undefined = await em
      .getKnex()('users')
      .transacting(transaction)
      .where({ id: request.userId })
      .first('id', 'username', 'disabled_at');
    return row ? { id: row.id, username: row.username, disabledAt: row.disabled_at } : null;
  }
  const [row] = await ctx.sql.select<OwnerRow>(
    'select "id", "username", "disabled_at" as "disabledAt" from "users" where "id" = ?',
    [request.userId],
  );
  return row ?? null;
}

/** What the request takes now: files and bytes received so far and held by uploads under way. */
async function usageOf(
  em: EntityManager,
  ctx: ServiceContext,
  requestId: string,
  exceptUpload: string | null,
): Promise<{ files: number; bytes: number; heldFiles: number; heldBytes: number }> {
  const knex = em.getKnex();
  const transaction = em.getTransactionContext();
  const fresh = ctx.clock.now() - STALE_RESERVATION_MS;
  // An upload whose file is recorded already counts once, as the file.
  const recorded = knex('files').select(knex.raw('1')).where('files.id', knex.ref('file_request_uploads.file_id'));
  const postgres = ctx.config.database.dialect === 'postgresql';
  const instant = (ms: number) => (postgres ? new Date(ms) : ms);
  // A resumable upload's place lives as long as the upload, whatever its receivers do.
  const liveResumable = knex('resumable_uploads')
    .select(knex.raw('1'))
    .where('resumable_uploads.id', knex.ref('file_request_uploads.id'))
    .whereNull('resumable_uploads.finished_at')
    .where('resumable_uploads.expires_at', '>', instant(ctx.clock.now()));
  const held = () => {
    const uploads = knex('file_request_uploads')
      .where({ request_id: requestId })
      .where((alive) => alive.where('updated_at', '>=', instant(fresh)).orWhereExists(liveResumable))
      .whereNotExists(recorded);
    return exceptUpload ? uploads.whereNot({ id: exceptUpload }) : uploads;
  };
  const received = () => knex('files').where({ request_id: requestId });
  // One statement, so one snapshot: read in two, an upload whose file was recorded and whose
  // place was given back between them would count in neither (PostgreSQL reads each statement
  // as of its own start), and a request for 5 files could take a 6th.
  const usage = knex.first({
    files: received().count('*'),
    bytes: received().sum('size'),
    heldFiles: held().count('*'),
    heldBytes: held().sum('bytes'),
  });
  const row: Record<'files' | 'bytes' | 'heldFiles' | 'heldBytes', number | string | null> | undefined =
    await (transaction ? usage.transacting(transaction) : usage);
  return {
    files: Number(row?.files ?? 0),
    bytes: Number(row?.bytes ?? 0),
    heldFiles: Number(row?.heldFiles ?? 0),
    heldBytes: Number(row?.heldBytes ?? 0),
  };
}

/**
 * Runs `decide` in a transaction holding the request's row as a lock, with the request as it is
 * then (null: deleted meanwhile): decisions about one request are taken one at a time, on every
 * instance (SQLite has a single writer; FOR UPDATE is left out there).
 */
function underRequestLock<T>(
  ctx: ServiceContext,
  requestId: string,
  decide: (em: EntityManager, request: StoredFileRequest | null) => Promise<T>,
): Promise<T> {
  return ctx.em.transactional(async (em) => {
    const transaction = em.getTransactionContext();
    const lock = em.getKnex()('file_requests').transacting(transaction).where({ id: requestId });
    const row = await (ctx.config.database.dialect === 'postgresql' ? lock.forUpdate() : lock).first('id');
    if (!row) return decide(em, null);
    return decide(em, await em.findOne(FileRequestSchema, { id: requestId }, { disableIdentityMap: true }));
  });
}

/** Why a request takes nothing now, or null while it takes files. */
function refusalOf(
  request: StoredFileRequest,
  owner: OwnerRow | null,
  usage: { files: number; bytes: number; heldFiles: number; heldBytes: number },
  now: number,
): Exclude<FileRequestState, 'open'> | null {
  // A disabled owner's requests are closed.
  if (!owner || owner.disabledAt !== null) return 'closed';
  const state = stateOf(request, { files: usage.files + usage.heldFiles, bytes: usage.bytes + usage.heldBytes }, now);
  return state === 'open' ? null : state;
}

function goneError(state: Exclude<FileRequestState, 'open'>): AppError {
  return new AppError('GONE', GONE_REQUEST_MESSAGES[state]);
}

/**
 * Opens a request for a guest: its title, message and what it still takes, once its password
 * is passed (`proof`: the grant a right password left). Nothing of the owner.
 */
export async function openFileRequest(ctx: ServiceContext, requestId: string, proof: ShareProof): Promise<GuestAccess> {
  const request = await findRequest(ctx, requestId);
  if (!request) return { kind: 'missing' };
  const owner = await ownerOf(ctx, request);
  const usage = await usageOf(ctx.em, ctx, request.id, null);
  const gone = refusalOf(request, owner, { ...usage, heldFiles: 0, heldBytes: 0 }, ctx.clock.now());
  if (gone) return { kind: 'gone', state: gone, message: GONE_REQUEST_MESSAGES[gone] };
  if (
    request.passwordHash &&
    !(await passesSharePassword(ctx, { id: request.id, passwordHash: request.passwordHash }, proof))
  )
    return { kind: 'locked', id: request.id };
  return { kind: 'open', view: await guestView(ctx, request, owner as OwnerRow, usage) };
}

async function guestView(
  ctx: ServiceContext,
  request: StoredFileRequest,
  owner: OwnerRow,
  usage: { files: number; bytes: number; heldFiles: number; heldBytes: number },
): Promise<GuestViewDto> {
  const quota = await quotaOfUser(ctx, owner.id);
  const quotaLeft =
    quota === null ? null : await withAvailableBytes(ctx, owner.id, quota, null, async (_em, available) => available);
  const requestLeft = request.maxBytes === null ? null : Number(request.maxBytes) - usage.bytes - usage.heldBytes;
  const lefts = [
    { left: requestLeft, of: request.maxBytes === null ? null : Number(request.maxBytes) },
    { left: quotaLeft, of: quota },
  ].filter((limit): limit is { left: number; of: number } => limit.left !== null && limit.of !== null);
  const tightest = lefts.reduce<{ left: number; of: number } | null>(
    (least, limit) => (least === null || limit.left < least.left ? limit : least),
    null,
  );
  return {
    id: request.id,
    title: request.title,
    message: request.message,
    expiresAt: request.expiresAt === null ? null : new Date(request.expiresAt).toISOString(),
    requireName: Boolean(request.requireName),
    filesLeft: request.maxFiles === null ? null : Math.max(0, Number(request.maxFiles) - usage.files - usage.heldFiles),
    bytesLeft: tightest === null ? null : Math.max(0, tightest.left),
    bytesLeftOf: tightest?.of ?? null,
    maxUploadBytes: ctx.config.maxUploadBytes,
  };
}

/**
 * Checks a request's password typed on its page; resolves with the proof to keep in a cookie.
 * Throttled per request and address as share passwords are (a wrong one 401, too many 429).
 */
export async function unlockFileRequest(
  ctx: ServiceContext,
  requestId: string,
  password: unknown,
): Promise<{ grant: string; maxAgeSeconds: number }> {
  const request = await findRequest(ctx, requestId);
  if (!request) throw new AppError('NOT_FOUND', 'File request not found');
  if (!request.passwordHash) throw new AppError('BAD_REQUEST', 'This file request has no password');
  return grantForPassword(ctx, { id: request.id, passwordHash: request.passwordHash }, password);
}

/**
 * A guest's name or note as kept: text without the characters text of its kind never keeps
 * (a name is one line, a note may have several: server/characters.ts), trimmed and capped; null
 * when blank. Cleaned rather than refused, as a file's name is (ADR 0059).
 */
function guestText(value: string | undefined, kind: TextKind, max: number): string | null {
  if (value === undefined) return null;
  const cleaned = Array.from(withoutUnsafeCharacters(value, kind)).slice(0, max).join('').trimEnd();
  return cleaned === '' ? null : cleaned;
}

/** What a guest sends with their files: their name and note (the form's fields before the files). */
export interface GuestFields {
  name?: string;
  note?: string;
  password?: string;
}

/** A guest let in to send files: the request, its owner, and the name and note as kept. */
interface CheckedGuest {
  request: StoredFileRequest;
  owner: AuthUser;
  name: string | null;
  note: string | null;
}

/** Lets a guest in: the request open (404, 410), its password passed (401), a name left when asked (400). */
async function checkGuest(
  ctx: ServiceContext,
  requestId: string,
  proof: ShareProof,
  fields: GuestFields,
): Promise<CheckedGuest> {
  const request = await findRequest(ctx, requestId);
  if (!request) throw new AppError('NOT_FOUND', 'File request not found');
  const owner = await ownerOf(ctx, request);
  const usage = await usageOf(ctx.em, ctx, request.id, null);
  const gone = refusalOf(request, owner, { ...usage, heldFiles: 0, heldBytes: 0 }, ctx.clock.now());
  if (gone || !owner) throw goneError(gone ?? 'closed');
  if (request.passwordHash) {
    const share = { id: request.id, passwordHash: request.passwordHash };
    const passed = await passesSharePassword(ctx, share, {
      grant: proof.grant,
      password: fields.password ?? proof.password,
    });
    if (!passed) throw new AppError('UNAUTHORIZED', 'This file request is password-protected: send its password.');
  }
  const name = guestText(fields.name, 'line', GUEST_NAME_MAX);
  if (request.requireName && name === null)
    throw new AppError('BAD_REQUEST', 'Please leave your name: this request asks for it.');
  return {
    request,
    owner: { id: owner.id, username: owner.username },
    name,
    note: guestText(fields.note, 'lines', GUEST_NOTE_MAX),
  };
}

/** The owner's context, in which a guest's file is stored: their quota, their default link settings. */
function actingAsOwner(ctx: ServiceContext, owner: AuthUser): ServiceContext {
  return { ...ctx, em: ctx.em, user: owner, authMethod: null, userQuotaColumns: null };
}

/**
 * The guest's side of one request, for one body of several files: `check` once (password, name,
 * the request still open), then `store` for each file.
 */
export function guestUploads(ctx: ServiceContext, requestId: string, proof: ShareProof) {
  let checked: Promise<CheckedGuest> | null = null;
  const check = (fields: GuestFields) => {
    checked ??= checkGuest(ctx, requestId, proof, fields);
    return checked;
  };
  return {
    /** Refuses at once a request that is unknown (404), or closed, expired or full (410). */
    async open(): Promise<void> {
      const request = await findRequest(ctx, requestId);
      if (!request) throw new AppError('NOT_FOUND', 'File request not found');
      const usage = await usageOf(ctx.em, ctx, request.id, null);
      const gone = refusalOf(
        request,
        await ownerOf(ctx, request),
        { ...usage, heldFiles: 0, heldBytes: 0 },
        ctx.clock.now(),
      );
      if (gone) throw goneError(gone);
    },
    /** Removes a file this body stored, when a later part of the same body is refused (all or nothing). */
    async undo(sent: { fileId: string }): Promise<void> {
      const file = await ctx.em.findOne(FileSchema, { id: sent.fileId, requestId }, { disableIdentityMap: true });
      if (!file) return;
      await ctx.em.nativeDelete(FileSchema, { id: file.id });
      await ctx.store.delete(file.storedName).catch((error: unknown) => {
        ctx.log.warn({ err: error, fileId: file.id }, 'content not removed; left to the sweep');
      });
    },
    /** Stores one file of the guest's into the owner's space, within the request's limits. */
    async store(upload: NewUpload, fields: GuestFields): Promise<SentFileDto & { fileId: string }> {
      const { request, owner, name, note } = await check(fields);
      await admitGuestUpload(ctx, ctx.clientAddress);
      const fileId = newFileId();
      const place = await RequestPlace.take(ctx, request.id, fileId);
      // The owner's own upload path: their quota, their default link settings; nothing the guest sent.
      const asOwner = actingAsOwner(ctx, owner);
      try {
        const file: FileDto = await uploadFile(asOwner, {
          ...upload,
          originalName: cleanFileName(upload.originalName),
          content: place.metered(upload.content),
          bodyAccepted: async () => {
            await upload.bodyAccepted?.();
            await place.requireRequest();
          },
          settings: {},
          fileId,
          received: { requestId: request.id, guestName: name, guestNote: note },
        });
        ctx.log.info({ requestId: request.id, fileId: file.id }, 'file received through a file request');
        return { fileId: file.id, originalName: file.originalName, size: file.size };
      } catch (error) {
        throw place.refusal ?? error;
      } finally {
        await place.release();
      }
    },
  };
}

/**
 * Removes the places of guest uploads whose receiver is gone (not refreshed for
 * STALE_RESERVATION_MS; `soleWriter`: every one, at a start on SQLite, when nothing is under
 * way). They hold nothing any more; a resumable upload's place lives with its upload and stays.
 */
export async function removeStaleRequestPlaces(
  deps: { em: EntityManager; clock: Pick<ServiceContext['clock'], 'now'> },
  soleWriter = false,
): Promise<number> {
  const resumable = await deps.em.find(
    ResumableUploadSchema,
    { requestId: { $ne: null }, finishedAt: null },
    { fields: ['id'], disableIdentityMap: true },
  );
  const before = new Date(soleWriter ? deps.clock.now() + 1 : deps.clock.now() - STALE_RESERVATION_MS);
  return deps.em.nativeDelete(FileRequestUploadSchema, {
    updatedAt: { $lt: before },
    ...(resumable.length ? { id: { $nin: resumable.map((upload) => upload.id) } } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// A guest's resumable uploads (tus, ADR 0019): for files too large to send in one body.

/** A guest's upload as tus creates it: Upload-Length, and Upload-Metadata (filename, filetype, name, note, password). */
export interface NewGuestResumableUpload {
  id: string;
  length: number;
  metadata: Record<string, string | null>;
}

/** A guest's upload, and the owner's context in which it is carried on and becomes their file. */
export interface GuestResumableUpload {
  upload: ResumableUpload;
  ownerCtx: ServiceContext;
}

/**
 * Starts a guest's resumable upload into a request: the checks a form's files pass (the request
 * open, its password, the guest's name, the address's throttle), then a place that holds the
 * whole declared length against the request's limits at once, as the upload holds it against
 * the owner's quota. The place lives as long as the upload: a guest may carry it on for a day.
 */
export async function createGuestResumableUpload(
  ctx: ServiceContext,
  requestId: string,
  proof: ShareProof,
  input: NewGuestResumableUpload,
  claimToken: string | null,
): Promise<GuestResumableUpload> {
  const text = (key: string) => input.metadata[key] ?? undefined;
  const { request, owner, name, note } = await checkGuest(ctx, requestId, proof, {
    name: text('name'),
    note: text('note'),
    password: text('password'),
  });
  if (!Number.isSafeInteger(input.length) || input.length < 0)
    throw new AppError('BAD_REQUEST', 'Upload-Length must be a whole number of bytes');
  if (input.length > ctx.config.maxUploadBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  await admitGuestUpload(ctx, ctx.clientAddress);
  const fileId = newFileId();
  await underRequestLock(ctx, request.id, async (em, current) => {
    if (!current) throw new AppError('NOT_FOUND', 'File request not found');
    const usage = await usageOf(em, ctx, current.id, null);
    const gone = refusalOf(current, await ownerOf(ctx, current, em), usage, ctx.clock.now());
    if (gone) throw goneError(gone);
    if (current.maxBytes !== null && usage.bytes + usage.heldBytes + input.length > Number(current.maxBytes))
      throw new AppError('PAYLOAD_TOO_LARGE', TOO_LARGE_FOR_REQUEST);
    await em.insert(FileRequestUploadSchema, {
      id: input.id,
      requestId: current.id,
      fileId,
      bytes: input.length,
      updatedAt: new Date(ctx.clock.now()),
    });
  });
  const ownerCtx = actingAsOwner(ctx, owner);
  try {
    // Only the file's name and type: the guest's other fields never become share settings.
    const upload = await createResumableUpload(
      ownerCtx,
      {
        id: input.id,
        length: input.length,
        metadata: { filename: input.metadata.filename ?? null, filetype: input.metadata.filetype ?? null },
        fileId,
        received: { requestId: request.id, guestName: name, guestNote: note },
      },
      claimToken,
    );
    ctx.log.info({ requestId: request.id, uploadId: upload.id }, 'resumable upload into a file request created');
    return { upload, ownerCtx };
  } catch (error) {
    await ctx.em.nativeDelete(FileRequestUploadSchema, { id: input.id });
    throw error;
  }
}

/**
 * A guest's upload into a request, to carry on, ask where it stands or end: looked up by its id
 * within that request only (an upload elsewhere is as unknown as one that never existed). An
 * unfinished one is gone (410) once its request is closed or expired, or once it lost its place
 * to a closing (reopened since): read from the request's row already at hand and the place's own.
 */
export async function findGuestResumableUpload(
  ctx: ServiceContext,
  requestId: string,
  uploadId: string,
): Promise<GuestResumableUpload> {
  const request = await findRequest(ctx, requestId);
  if (!request) throw new AppError('NOT_FOUND', 'File request not found');
  const upload = await ctx.em.findOne(
    ResumableUploadSchema,
    { id: uploadId, requestId: request.id },
    { disableIdentityMap: true },
  );
  if (!upload) {
    // Uploads a closing removed, and any other, are gone (410) with their closed or expired request.
    const stopped = stoppedState(request, ctx.clock.now());
    throw stopped ? goneError(stopped) : new AppError('NOT_FOUND', 'Upload not found');
  }
  // The request's owner is the upload's (it was made in the owner's space).
  const owner = await ownerOf(ctx, request);
  if (!owner || owner.id !== upload.userId) throw new AppError('NOT_FOUND', 'Upload not found');
  const ownerCtx = actingAsOwner(ctx, { id: owner.id, username: owner.username });
  // The same answers as on the owner's own uploads (410 once expired).
  requireUnexpired(ctx, upload);
  if (!upload.finishedAt) {
    const holdsPlace = (await ctx.em.count(FileRequestUploadSchema, { id: upload.id })) > 0;
    const refusal = uploadRefusal(request, holdsPlace, ctx.clock.now());
    if (refusal) throw refusal;
  }
  return { upload, ownerCtx };
}

/** Bytes an upload holds ahead of what it received while the request's room is ample. */
const HOLD_STEP_BYTES = 1024 * 1024;
const AMPLE_ROOM_BYTES = 16 * 1024 * 1024;
const REFRESH_EVERY_MS = 60_000;

const TOO_LARGE_FOR_REQUEST = 'This file is larger than the room left in this file request.';
const REQUEST_GONE = 'File request not found';

/**
 * One guest upload's place in a request (its `file_request_uploads` row): taken before the
 * first byte, holding the bytes received against the request's byte limit, refreshed while the
 * upload lasts, removed once the file is recorded or refused.
 */
class RequestPlace {
  private held = 0;
  private writes: Promise<unknown> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | null;
  /** Why the upload was refused for the request's limits (the store reports the stream's end its own way). */
  refusal: AppError | null = null;

  private constructor(
    private readonly ctx: ServiceContext,
    private readonly requestId: string,
    private readonly id: string,
    private readonly maxBytes: number | null,
  ) {
    this.heartbeat = setInterval(() => {
      this.serially(() =>
        ctx.em.nativeUpdate(FileRequestUploadSchema, { id: this.id }, { updatedAt: new Date(ctx.clock.now()) }),
      ).catch((error) => ctx.log.warn({ err: error }, 'file request upload not refreshed'));
    }, REFRESH_EVERY_MS);
    this.heartbeat.unref();
  }

  /** Takes a place among the request's files, or refuses (410: closed, expired or full). */
  static async take(ctx: ServiceContext, requestId: string, fileId: string): Promise<RequestPlace> {
    const id = randomUUID();
    const maxBytes = await underRequestLock(ctx, requestId, async (em, request) => {
      if (!request) throw new AppError('NOT_FOUND', 'File request not found');
      const owner = await ownerOf(ctx, request, em);
      const usage = await usageOf(em, ctx, requestId, null);
      const gone = refusalOf(request, owner, usage, ctx.clock.now());
      if (gone) throw goneError(gone);
      await em.insert(FileRequestUploadSchema, {
        id,
        requestId,
        fileId,
        bytes: 0,
        updatedAt: new Date(ctx.clock.now()),
      });
      return request.maxBytes === null ? null : Number(request.maxBytes);
    });
    return new RequestPlace(ctx, requestId, id, maxBytes);
  }

  /** `content` with each chunk's bytes held against the request's byte limit before they go on. */
  metered(content: Readable): Readable {
    const maxBytes = this.maxBytes;
    if (maxBytes === null) return content;
    let received = 0;
    const meter = new Transform({
      highWaterMark: 1024 * 1024,
      transform: (chunk: Buffer, _encoding, callback: TransformCallback) => {
        received += chunk.length;
        if (received <= this.held) return callback(null, chunk);
        const upTo = received;
        this.serially(() => this.cover(maxBytes, upTo)).then(() => callback(null, chunk), callback);
      },
    });
    return pipeline(content, meter, () => {});
  }

  private async cover(maxBytes: number, received: number): Promise<void> {
    const held = await underRequestLock(this.ctx, this.requestId, async (em, request) => {
      if (!request) return 'deleted';
      // Closed or expired meanwhile: refused before the rest of the body is read.
      const stopped = stoppedState(request, this.ctx.clock.now());
      if (stopped) return stopped;
      const usage = await usageOf(em, this.ctx, this.requestId, this.id);
      const available = maxBytes - usage.bytes - usage.heldBytes;
      if (received > available) {
        // Given back in the same transaction: an upload racing this one finds the room at its next chunk.
        await em.nativeDelete(FileRequestUploadSchema, { id: this.id });
        return null;
      }
      const ahead = Math.min(HOLD_STEP_BYTES, Math.max(0, available - received - AMPLE_ROOM_BYTES));
      await em.nativeUpdate(
        FileRequestUploadSchema,
        { id: this.id },
        { bytes: received + ahead, updatedAt: new Date(this.ctx.clock.now()) },
      );
      return received + ahead;
    });
    if (held === 'deleted') throw this.refused(new AppError('NOT_FOUND', REQUEST_GONE));
    if (held === 'closed' || held === 'expired') throw this.refused(goneError(held));
    if (held === null) throw this.refused(new AppError('PAYLOAD_TOO_LARGE', TOO_LARGE_FOR_REQUEST));
    this.held = held;
  }

  /**
   * Refuses, before the content is committed, once the request no longer takes this upload
   * (file-request-stops.ts): deleted (404; its place went with it, the foreign key cascades),
   * closed or expired (410).
   */
  async requireRequest(): Promise<void> {
    await this.writes;
    try {
      await requireRequestTakesUpload(this.ctx.em, this.requestId, this.id, this.ctx.clock.now());
    } catch (error) {
      throw error instanceof AppError ? this.refused(error) : error;
    }
  }

  /** Keeps why the upload was refused, for the store's own way of reporting the stream's end. */
  private refused(error: AppError): AppError {
    this.refusal = error;
    return error;
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const done = this.writes.then(write);
    this.writes = done.catch(() => undefined);
    return done;
  }

  async release(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await this.writes;
    try {
      await this.ctx.em.nativeDelete(FileRequestUploadSchema, { id: this.id });
    } catch (error) {
      // Not the upload's failure: the row goes stale and holds nothing any more.
      this.ctx.log.warn({ err: error }, 'file request upload row not removed; it goes stale');
    }
  }
}
