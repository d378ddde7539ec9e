// File requests (ADR 0048), who may open `/r/<id>` and what a guest sees there: the request's
// title, message and what it still takes, behind its password, never its owner nor what others sent.
import { type TextKind, withoutUnsafeCharacters } from '../../utilities/characters';
import type { AuthUser, ServiceContext } from '../../context';
import type { StoredFileRequest } from '../../db/entities/file-request.entity';
import { AppError } from '../../utilities/errors';
import { GONE_REQUEST_MESSAGES } from '../file-request-stops';
import { quotaOfUser, withAvailableBytes } from '../quotas';
import { requestUsageOf } from '../request-metering';
import { grantForPassword, passesSharePassword, type ShareProof } from '../share-access';
import { type FileRequestState, findRequest, goneError, type OwnerRow, ownerOf, refusalOf } from './request-state';

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

/** A request as the guest's page opens it. */
type GuestAccess =
  | { kind: 'missing' }
  | { kind: 'gone'; state: Exclude<FileRequestState, 'open'>; message: string }
  | { kind: 'locked'; id: string }
  | { kind: 'open'; view: GuestViewDto };

/**
 * Opens a request for a guest: its title, message and what it still takes, once its password
 * is passed (`proof`: the grant a right password left). Nothing of the owner.
 */
export async function openFileRequest(ctx: ServiceContext, requestId: string, proof: ShareProof): Promise<GuestAccess> {
  const request = await findRequest(ctx, requestId);
  if (!request) return { kind: 'missing' };
  const owner = await ownerOf(ctx, request);
  const usage = await requestUsageOf(ctx.em, ctx, request.id, null);
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
 * (a name is one line, a note may have several: server/utilities/characters.ts), trimmed and capped; null
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
export interface CheckedGuest {
  request: StoredFileRequest;
  owner: AuthUser;
  name: string | null;
  note: string | null;
}

/** Lets a guest in: the request open (404, 410), its password passed (401), a name left when asked (400). */
export async function checkGuest(
  ctx: ServiceContext,
  requestId: string,
  proof: ShareProof,
  fields: GuestFields,
): Promise<CheckedGuest> {
  const request = await findRequest(ctx, requestId);
  if (!request) throw new AppError('NOT_FOUND', 'File request not found');
  const owner = await ownerOf(ctx, request);
  const usage = await requestUsageOf(ctx.em, ctx, request.id, null);
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
export function actingAsOwner(ctx: ServiceContext, owner: AuthUser): ServiceContext {
  return { ...ctx, em: ctx.em, user: owner, authMethod: null, userQuotaColumns: null };
}
