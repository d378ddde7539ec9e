// Resumable uploads (tus, ADR 0019): every rule about them, whatever speaks the protocol. An
// upload belongs to its creator and holds its whole declared length against their quota from
// the start. Its bytes go to the content store's partial area; its row records how many of them
// are durable. Once the last byte is in, it becomes a file exactly as a multipart upload does:
// content in place first, then the file's row, in the same transaction that marks it finished.
// One request at a time works on an upload, on any instance: a claim on its row (a lease).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from '../db/orm';
import type { ServiceContext } from '../context';
import { FileRequestSchema, FileRequestUploadSchema } from '../db/entities/file-request.entity';
import { FileSchema, type StoredFile } from '../db/entities/file.entity';
import { ResumableUploadSchema, type ResumableUpload } from '../db/entities/resumable-upload.entity';
import { AppError } from '../utilities/errors';
import { SHARE_SETTING_FIELDS } from '../schemas';
import {
  FIRST_BYTES_KEPT,
  PARTIAL_CONTENT_LIFETIME_MS,
  type ContentStore,
  type PartialProgress,
} from '../storage/content-store';
import { collectionTarget, joinCollection } from './collections';
import { requireRequestTakesUpload, stoppedState } from './file-request-stops';
import { cleanFileName, newFileId, storedExtension, toFileDto, type FileDto } from './files';
import { quotaOfUser, withAvailableBytes } from './quotas';
import { declaredFileType, fileTypeOf } from './file-types';
import { requireUser } from './guards';
import { quotaExceededError } from './storage-usage';
import { storageStep } from './storage-errors';
import { newShareColumns } from './share-settings';

/** An unfinished upload, and its bytes, are removed this long after it began. */
export const RESUMABLE_UPLOAD_LIFETIME_MS = PARTIAL_CONTENT_LIFETIME_MS;
/** A claim not renewed for this long belonged to a request that died with its instance. */
const CLAIM_LEASE_MS = 10_000;

export interface NewResumableUpload {
  /** Made by newUploadId(): the address is chosen before the upload is created. */
  id: string;
  /** Upload-Length. */
  length: number;
  /** Upload-Metadata: `filename` and `filetype`, and the share settings a multipart upload takes. */
  metadata: Record<string, string | null>;
  /** The id its file will have, when chosen before (a file request's place names it). */
  fileId?: string;
  /** A guest's upload into a file request: the request, and the name and note the guest left. */
  received?: { requestId: string; guestName: string | null; guestNote: string | null };
}

/** The share settings chosen at creation, applied when the file is made. */
interface ChosenShareSettings {
  /** A fixed end (expiresAt was sent)... */
  expiresAt: string | null;
  /** ...or one counted from when the file is made (expiresIn, or the default expiry). */
  expiresAfterMs: number | null;
  maxDownloads: number | null;
  passwordHash: string | null;
}

/** 128 random bits, like file ids: upload addresses are only ever made by the server. */
export function newUploadId(): string {
  return randomBytes(16).toString('base64url');
}

/** Starts an upload for the caller: refused at once past MAX_UPLOAD_BYTES or the quota. */
export async function createResumableUpload(
  ctx: ServiceContext,
  input: NewResumableUpload,
  claimToken: string | null,
): Promise<ResumableUpload> {
  const owner = requireUser(ctx);
  if (!Number.isSafeInteger(input.length) || input.length < 0)
    throw new AppError('BAD_REQUEST', 'Upload-Length must be a whole number of bytes');
  if (input.length > ctx.config.maxUploadBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  const share = await chosenShareSettings(ctx, input.metadata);
  const originalName = cleanFileName(input.metadata.filename ?? '');
  const joins = input.metadata.collection
    ? await collectionTarget(ctx, input.metadata.collection, input.metadata.path ?? originalName)
    : null;
  const fileId = input.fileId ?? newFileId();
  const now = ctx.clock.now();
  const row: ResumableUpload = {
    id: input.id,
    userId: owner.id,
    fileId,
    storedName: fileId + storedExtension(originalName),
    originalName,
    // The client's claim, until the content is in and its type is found (finish, ADR 0064).
    mimeType: declaredFileType(originalName, input.metadata.filetype),
    length: input.length,
    receivedBytes: 0,
    contentState: null,
    shareSettings: JSON.stringify(share),
    createdAt: new Date(now),
    expiresAt: new Date(now + RESUMABLE_UPLOAD_LIFETIME_MS),
    finishedAt: null,
    lockToken: claimToken,
    lockExpiresAt: claimToken ? new Date(now + CLAIM_LEASE_MS) : null,
    releaseRequested: false,
    collectionId: joins?.collectionId ?? null,
    collectionPath: joins?.path ?? null,
    requestId: input.received?.requestId ?? null,
    guestName: input.received?.guestName ?? null,
    guestNote: input.received?.guestNote ?? null,
  };
  row.contentState = await storageStep(() => ctx.store.partial.begin(row.storedName));
  try {
    const quota = await quotaOfUser(ctx, owner.id);
    if (quota === null) await ctx.em.insert(ResumableUploadSchema, row);
    else {
      await withAvailableBytes(ctx, owner.id, quota, null, async (em, available) => {
        if (input.length > available) throw await quotaExceededError(ctx, owner.id, { quota, em });
        await em.insert(ResumableUploadSchema, row);
      });
    }
  } catch (error) {
    await ctx.store.partial.discard(row.storedName, row.contentState).catch(() => undefined);
    throw error;
  }
  ctx.log.info({ uploadId: row.id, length: row.length }, 'resumable upload created');
  return row;
}

/** The share settings in the metadata, checked now as a multipart upload's are (the password hashed now). */
async function chosenShareSettings(
  ctx: ServiceContext,
  metadata: Record<string, string | null>,
): Promise<ChosenShareSettings> {
  const input: Record<string, string> = {};
  for (const field of SHARE_SETTING_FIELDS) {
    const value = metadata[field];
    if (value !== undefined && value !== null) input[field] = value;
  }
  const columns = await newShareColumns(ctx, input);
  return {
    expiresAt: columns.expiresAfterMs === null && columns.expiresAt ? columns.expiresAt.toISOString() : null,
    expiresAfterMs: columns.expiresAfterMs,
    maxDownloads: columns.maxDownloads,
    passwordHash: columns.passwordHash,
  };
}

/** One of the caller's uploads; another user's is as unknown as one that never existed (404). */
export async function findOwnResumableUpload(ctx: ServiceContext, id: string): Promise<ResumableUpload> {
  const owner = requireUser(ctx);
  const row = await ctx.em.findOne(ResumableUploadSchema, { id, userId: owner.id }, { disableIdentityMap: true });
  if (!row) throw new AppError('NOT_FOUND', 'Upload not found');
  return requireUnexpired(ctx, row);
}

/** An unfinished upload past its day is gone (410) until the sweep removes it. */
export function requireUnexpired(ctx: Pick<ServiceContext, 'clock'>, row: ResumableUpload): ResumableUpload {
  if (!row.finishedAt && row.expiresAt.getTime() <= ctx.clock.now())
    throw new AppError('GONE', 'This upload has expired');
  return row;
}

/** The same answer as for an upload that does not exist: a row read for one user never serves another. */
function requireOwner(ctx: ServiceContext, upload: ResumableUpload): void {
  if (upload.userId !== requireUser(ctx).id) throw new AppError('NOT_FOUND', 'Upload not found');
}

export interface AppendResult {
  receivedBytes: number;
  /** The file the upload became, when this request brought its last byte. */
  file: FileDto | null;
}

/**
 * Adds the bytes of one request at `offset`, which must be where the upload stands (409
 * otherwise). Whatever arrives is kept, even when the request breaks off; the bytes already
 * received by the end are recorded before this resolves. The caller holds the upload's claim
 * and read `upload` (findOwnResumableUpload) since taking it.
 */
export async function appendToResumableUpload(
  ctx: ServiceContext,
  upload: ResumableUpload,
  offset: number,
  content: Readable,
  claimToken: string | null,
): Promise<AppendResult> {
  requireOwner(ctx, upload);
  requireUnfinished(upload);
  if (upload.receivedBytes !== offset) throw new AppError('CONFLICT', `Upload-Offset must be ${upload.receivedBytes}`);
  const record = (progress: PartialProgress) => recordProgress(ctx, upload, progress, claimToken);
  const from = { size: Number(upload.receivedBytes), state: upload.contentState ?? '' };
  const progress = await storageStep(() =>
    ctx.store.partial.append(upload.storedName, from, content, { length: Number(upload.length), checkpoint: record }),
  );
  if (progress.size < upload.length) {
    await record(progress);
    return { receivedBytes: progress.size, file: null };
  }
  return { receivedBytes: progress.size, file: await finish(ctx, upload, progress, claimToken) };
}

/**
 * Content is finished only when the bytes stored add up to Upload-Length exactly, and progress
 * past it is never recorded: more would be content nobody sent, and an offset past the length is
 * never reported. The upload stays where it was last recorded, and the client resumes from what
 * HEAD says (409, which tus clients answer with a HEAD).
 */
function lengthMismatch(upload: ResumableUpload, size: number): AppError {
  return new AppError(
    'CONFLICT',
    `The stored bytes (${size}) do not add up to Upload-Length (${upload.length}): resume from the offset HEAD gives`,
  );
}

/** A finished upload takes no more bytes, whatever a request sends and from where: 400 (ADR 0019). */
export function requireUnfinished(upload: ResumableUpload): void {
  if (upload.finishedAt) throw new AppError('BAD_REQUEST', 'This upload is already complete');
}

/** Writes the durable progress, only while this request still holds the claim (else another has taken over). */
async function recordProgress(
  ctx: ServiceContext,
  upload: ResumableUpload,
  progress: PartialProgress,
  claimToken: string | null,
): Promise<void> {
  if (progress.size > Number(upload.length)) throw lengthMismatch(upload, progress.size);
  const updated = await ctx.em
    .fork()
    .nativeUpdate(
      ResumableUploadSchema,
      { id: upload.id, lockToken: claimToken },
      { receivedBytes: progress.size, contentState: progress.state },
    );
  if (updated === 0) throw new AppError('LOCKED', 'Another request took over this upload');
}

/** The content goes in place, then the file's row and the upload's end, together. */
async function finish(
  ctx: ServiceContext,
  upload: ResumableUpload,
  progress: PartialProgress,
  claimToken: string | null,
): Promise<FileDto> {
  if (progress.size !== Number(upload.length)) throw lengthMismatch(upload, progress.size);
  await storageStep(() => ctx.store.partial.finish(upload.storedName, progress));
  const mimeType = await foundFileType(ctx, upload, progress.size);
  const share = JSON.parse(upload.shareSettings ?? 'null') as ChosenShareSettings | null;
  const now = ctx.clock.now();
  const file: StoredFile = {
    id: upload.fileId,
    userId: upload.userId,
    originalName: upload.originalName,
    mimeType,
    size: progress.size,
    storedName: upload.storedName,
    createdAt: new Date(now),
    downloads: 0,
    views: 0,
    expiresAt:
      share?.expiresAfterMs != null
        ? new Date(now + share.expiresAfterMs)
        : share?.expiresAt
          ? new Date(share.expiresAt)
          : null,
    maxDownloads: share?.maxDownloads ?? null,
    passwordHash: share?.passwordHash ?? null,
    requestId: upload.requestId ?? null,
    guestName: upload.guestName ?? null,
    guestNote: upload.guestNote ?? null,
  };
  try {
    await ctx.em.fork().transactional(async (em) => {
      const ended = await em.nativeUpdate(
        ResumableUploadSchema,
        { id: upload.id, lockToken: claimToken, finishedAt: null },
        { receivedBytes: progress.size, contentState: null, finishedAt: new Date(now), shareSettings: null },
      );
      if (ended === 0) throw new AppError('LOCKED', 'Another request took over this upload');
      // A guest's file request deleted, closed or expired meanwhile takes no more files.
      if (upload.requestId) await requireRequestTakesUpload(em, upload.requestId, upload.id, now);
      await em.insert(FileSchema, file);
      // A guest's place in a file request: the file counts from now on, the place no more.
      if (upload.requestId) await em.nativeDelete(FileRequestUploadSchema, { id: upload.id });
      if (upload.collectionId && upload.collectionPath)
        await joinCollection(
          em,
          upload.userId,
          { collectionId: upload.collectionId, path: upload.collectionPath },
          file.id,
        );
    });
  } catch (error) {
    // No row points to the content: it goes, and the upload (its partial content gone) with it.
    await ctx.store.delete(upload.storedName).catch(() => undefined);
    await ctx.em.fork().nativeDelete(ResumableUploadSchema, { id: upload.id, finishedAt: null });
    throw error;
  }
  ctx.log.info({ fileId: file.id, uploadId: upload.id, size: file.size }, 'file uploaded (resumable)');
  return toFileDto(file);
}

/**
 * The finished content's type (ADR 0064), from its first bytes read back by byte range: the
 * requests that brought them may each have carried a few bytes only. Bytes that cannot be read
 * leave the type the client declared: a file is never lost over its type.
 */
async function foundFileType(ctx: ServiceContext, upload: ResumableUpload, size: number): Promise<string> {
  try {
    const chunks: Buffer[] = [];
    if (size > 0) {
      const opened = await ctx.store.open(upload.storedName, { start: 0, end: Math.min(size, FIRST_BYTES_KEPT) - 1 });
      for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    }
    const firstBytes = Buffer.concat(chunks);
    return await fileTypeOf({
      name: upload.originalName,
      declared: upload.mimeType,
      firstBytes,
      whole: firstBytes.length === size,
    });
  } catch (error) {
    ctx.log.warn({ err: error, uploadId: upload.id }, 'first bytes not read; the declared type is kept');
    return upload.mimeType;
  }
}

/** Ends one of the caller's unfinished uploads and removes its bytes (a finished one stays: 400). */
export async function terminateResumableUpload(
  ctx: ServiceContext,
  upload: ResumableUpload,
  claimToken: string | null,
): Promise<void> {
  requireOwner(ctx, upload);
  if (upload.finishedAt) throw new AppError('BAD_REQUEST', 'This upload is already complete: delete its file instead');
  const removed = await ctx.em.nativeDelete(ResumableUploadSchema, {
    id: upload.id,
    lockToken: claimToken,
    finishedAt: null,
  });
  if (removed === 0) throw new AppError('LOCKED', 'Another request is writing to this upload');
  if (upload.requestId) await ctx.em.nativeDelete(FileRequestUploadSchema, { id: upload.id });
  await discardContent(ctx, upload);
  ctx.log.info({ uploadId: upload.id }, 'resumable upload terminated');
}

async function discardContent(
  ctx: Pick<ServiceContext, 'store' | 'log'>,
  upload: Pick<ResumableUpload, 'id' | 'storedName' | 'contentState'>,
): Promise<void> {
  try {
    await ctx.store.partial.discard(upload.storedName, upload.contentState ?? '');
  } catch (error) {
    ctx.log.warn({ err: error, uploadId: upload.id }, 'partial content not removed; left to the sweep');
  }
}

// ---------------------------------------------------------------------------- claims

/** A request's hold on one upload: renewed while it lasts, and it hears when another asks for the upload. */
export interface UploadClaim {
  readonly token: string | null;
  release(): Promise<void>;
}

/** How long a request waits for another to let go of an upload before answering 423. */
const CLAIM_WAIT_MS = 15_000;
const CLAIM_POLL_MS = 100;
/** The holder renews its lease, and looks for a request to let go, this often. */
const CLAIM_RENEW_MS = 1_000;

/**
 * Takes the claim on an upload for one request. A request already holding it is asked to let go
 * (`onReleaseRequested` on its side: it stops reading its body, keeps what arrived and
 * finishes), as a client that lost its connection and resumes wants. An upload that does not
 * exist yet (being created by this request) or no longer exists needs no claim: the token is then
 * what a creation stores.
 */
export async function claimResumableUpload(
  ctx: ServiceContext,
  id: string,
  options: { signal: AbortSignal; onReleaseRequested: () => void },
): Promise<UploadClaim> {
  const em = ctx.em.fork();
  const token = randomUUID();
  const deadline = ctx.clock.now() + CLAIM_WAIT_MS;
  let asked = false;
  for (;;) {
    const now = new Date(ctx.clock.now());
    const claimed = await em.nativeUpdate(
      ResumableUploadSchema,
      { id, $or: [{ lockToken: null }, { lockExpiresAt: { $lt: now } }] },
      { lockToken: token, lockExpiresAt: new Date(now.getTime() + CLAIM_LEASE_MS), releaseRequested: false },
    );
    // Claimed; or no such upload: the creation under way stores this token, else nothing is held.
    if (claimed === 1 || (await em.count(ResumableUploadSchema, { id })) === 0)
      return heldClaim(ctx, em, id, token, options.onReleaseRequested);
    if (!asked) {
      await em.nativeUpdate(ResumableUploadSchema, { id }, { releaseRequested: true });
      asked = true;
    }
    if (options.signal.aborted) throw new AppError('LOCKED', 'The request ended while waiting for this upload');
    if (ctx.clock.now() > deadline)
      throw new AppError('LOCKED', 'Another request is writing to this upload; try again shortly');
    await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
  }
}

function heldClaim(
  ctx: ServiceContext,
  em: EntityManager,
  id: string,
  token: string,
  onReleaseRequested: () => void,
): UploadClaim {
  let told = false;
  const renew = async () => {
    const leaseUntil = new Date(ctx.clock.now() + CLAIM_LEASE_MS);
    const renewed = await em.nativeUpdate(
      ResumableUploadSchema,
      { id, lockToken: token, releaseRequested: false },
      { lockExpiresAt: leaseUntil },
    );
    // Nothing renewed: asked to let go, or the claim lapsed, unless the upload is still being created.
    if (renewed === 0 && !told && (await em.count(ResumableUploadSchema, { id })) > 0) {
      told = true;
      onReleaseRequested();
    }
  };
  const timer = setInterval(() => {
    renew().catch((error: unknown) => ctx.log.warn({ err: error, uploadId: id }, 'upload claim not renewed'));
  }, CLAIM_RENEW_MS);
  timer.unref();
  return {
    token,
    async release() {
      clearInterval(timer);
      await em.nativeUpdate(ResumableUploadSchema, { id, lockToken: token }, { lockToken: null, lockExpiresAt: null });
    },
  };
}

// ---------------------------------------------------------------------------- housekeeping

/**
 * Removes uploads past their day: an unfinished one with its bytes, a finished one's row only
 * (its file lives on). One not claimed, or whose claim has lapsed, so never under a request.
 */
export async function removeExpiredResumableUploads(deps: {
  em: EntityManager;
  store: ContentStore;
  log: ServiceContext['log'];
  clock: ServiceContext['clock'];
}): Promise<number> {
  const { em, store, log, clock } = deps;
  const now = new Date(clock.now());
  const expired = await em.find(
    ResumableUploadSchema,
    { expiresAt: { $lte: now } },
    { fields: ['id', 'storedName', 'contentState', 'finishedAt'], limit: 200, disableIdentityMap: true },
  );
  let removed = 0;
  for (const upload of expired) {
    const gone = await em.nativeDelete(ResumableUploadSchema, {
      id: upload.id,
      $or: [{ lockToken: null }, { lockExpiresAt: { $lt: now } }],
    });
    if (gone === 0) continue;
    removed++;
    // A guest's place in a file request, which the upload held (none for the owner's own uploads).
    await em.nativeDelete(FileRequestUploadSchema, { id: upload.id });
    if (!upload.finishedAt) await discardContent({ store, log }, upload);
  }
  if (removed) log.info({ removed }, 'removed expired resumable uploads');
  return removed;
}

/** Uploads whose places and requests are looked up per query. */
const STOPPED_LOOKUP_BATCH = 500;

/**
 * Removes guests' unfinished uploads into file requests that no longer take them (ADR 0048):
 * those that lost their place (their request was closed or deleted) and those whose request is
 * closed or has expired, with their places and bytes. One a request is writing to is left to it
 * (its last step is refused, and its content goes then) and taken at a later round once let go.
 * `requestId`: only that request's, as it closes.
 */
export async function removeStoppedRequestUploads(
  deps: Pick<ServiceContext, 'em' | 'store' | 'log' | 'clock'>,
  requestId?: string,
): Promise<number> {
  const { em, store, log, clock } = deps;
  const now = clock.now();
  // A guest's upload lives a day: these are the guest uploads of the last day, at most.
  const unfinished = await em.find(
    ResumableUploadSchema,
    { requestId: requestId ?? { $ne: null }, finishedAt: null },
    { fields: ['id', 'requestId', 'storedName', 'contentState'], disableIdentityMap: true },
  );
  let removed = 0;
  for (let i = 0; i < unfinished.length; i += STOPPED_LOOKUP_BATCH) {
    const batch = unfinished.slice(i, i + STOPPED_LOOKUP_BATCH);
    const placed = await em.find(
      FileRequestUploadSchema,
      { id: { $in: batch.map((upload) => upload.id) } },
      { fields: ['id'], disableIdentityMap: true },
    );
    const requests = await em.find(
      FileRequestSchema,
      { id: { $in: [...new Set(batch.map((upload) => upload.requestId as string))] } },
      { fields: ['id', 'closedAt', 'expiresAt'], disableIdentityMap: true },
    );
    const holdsPlace = new Set(placed.map((place) => place.id));
    const taking = new Set(requests.filter((request) => !stoppedState(request, now)).map((request) => request.id));
    for (const upload of batch) {
      if (holdsPlace.has(upload.id) && taking.has(upload.requestId as string)) continue;
      const gone = await em.nativeDelete(ResumableUploadSchema, {
        id: upload.id,
        finishedAt: null,
        $or: [{ lockToken: null }, { lockExpiresAt: { $lt: new Date(now) } }],
      });
      if (gone === 0) continue;
      removed++;
      await em.nativeDelete(FileRequestUploadSchema, { id: upload.id });
      await discardContent({ store, log }, upload);
    }
  }
  if (removed) log.info({ removed }, 'removed uploads into file requests that no longer take them');
  return removed;
}

/** The keys of partial content still in use, which the storage sweep must leave alone. */
export async function unfinishedUploadKeys(em: EntityManager): Promise<Set<string>> {
  const rows = await em.find(
    ResumableUploadSchema,
    { finishedAt: null },
    { fields: ['storedName'], disableIdentityMap: true },
  );
  return new Set(rows.map((row) => row.storedName));
}

/** The partial content of a user's unfinished uploads, removed when the user is (their rows go with the user's). */
export async function discardUploadsOf(
  ctx: ServiceContext,
  uploads: Pick<ResumableUpload, 'id' | 'storedName' | 'contentState'>[],
): Promise<void> {
  for (const upload of uploads) await discardContent(ctx, upload);
}

// ---------------------------------------------------------------------------- the files page

/** An unfinished upload as its owner sees it on the files page. */
export interface UnfinishedUploadDto {
  id: string;
  originalName: string;
  /** Upload-Length: the bytes it holds against the quota. */
  size: number;
  receivedBytes: number;
  /** ISO-8601. */
  createdAt: string;
}

/** The most listed: an upload lives a day, so a person never has more than a script made. */
const UNFINISHED_UPLOADS_LISTED = 100;

/** The caller's unfinished uploads that can still be carried on, newest first; nobody else's. */
export async function listMyUnfinishedUploads(ctx: ServiceContext): Promise<UnfinishedUploadDto[]> {
  const owner = requireUser(ctx);
  const rows = await ctx.em.find(
    ResumableUploadSchema,
    { userId: owner.id, finishedAt: null, expiresAt: { $gt: new Date(ctx.clock.now()) } },
    {
      fields: ['id', 'originalName', 'length', 'receivedBytes', 'createdAt'],
      orderBy: { createdAt: 'desc', id: 'asc' },
      limit: UNFINISHED_UPLOADS_LISTED,
      disableIdentityMap: true,
    },
  );
  return rows.map((row) => ({
    id: row.id,
    originalName: row.originalName,
    size: Number(row.length),
    receivedBytes: Number(row.receivedBytes),
    createdAt: new Date(row.createdAt).toISOString(),
  }));
}

/**
 * Cancels one of the caller's unfinished uploads outside the protocol (the files page's Cancel):
 * the tus termination's rule, under the upload's claim as a DELETE takes it. Another user's
 * upload is 404 before any claim is asked for, so nobody can even interrupt an upload not theirs.
 */
export async function cancelResumableUpload(ctx: ServiceContext, id: string): Promise<void> {
  await findOwnResumableUpload(ctx, id);
  // A request writing to it is asked to let go, as a client resuming would ask.
  const claim = await claimResumableUpload(ctx, id, {
    signal: new AbortController().signal,
    onReleaseRequested: () => undefined,
  });
  try {
    // Read again under the claim: the writer that let go recorded its last bytes.
    await terminateResumableUpload(ctx, await findOwnResumableUpload(ctx, id), claim.token);
  } finally {
    await claim.release();
  }
}
