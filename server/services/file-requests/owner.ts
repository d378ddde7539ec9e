// File requests (ADR 0048), the owner's side: a link, `/r/<id>`, through which someone without an
// account sends files into a user's space. The owner creates, lists, closes, reopens and deletes
// their requests; what arrives is the owner's files (their list, quota, share controls), marked
// with the request and the guest's name and note.
import type { ServiceContext } from '../../context';
import { hashPassword } from '../../auth/passwords';
import {
  FileRequestSchema,
  FileRequestUploadSchema,
  type StoredFileRequest,
} from '../../db/entities/file-request.entity';
import { FileSchema } from '../../db/entities/file.entity';
import { ResumableUploadSchema } from '../../db/entities/resumable-upload.entity';
import { AppError } from '../../utilities/errors';
import { pooledRandomBytes } from '../../utilities/random-pool';
import { firstIssue, newFileRequestSchema } from '../../schemas';
import { requireUser } from '../guards';
import { discardUploadsOf, removeStoppedRequestUploads } from '../resumable-uploads';
import { type FileRequestState, stateOf } from './request-state';
import { recordActivity } from '../activity';

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
  await recordActivity(ctx, {
    action: 'file-request.made',
    target: { kind: 'file-request', id: request.id, name: request.title },
  });
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
  if (closed && !request.closedAt)
    await recordActivity(ctx, {
      action: 'file-request.closed',
      target: { kind: 'file-request', id: request.id, name: request.title },
    });
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
