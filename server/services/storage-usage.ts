// What fills a user's storage, in terms they can act on (ADR 0018, "What holds the room"): the
// bytes their files use, the bytes their unfinished uploads hold, and what their quota leaves.
// Only reads: the holds are made and given back by quotas.ts and resumable-uploads.ts. The
// holds counted here are the ones withAvailableBytes (quotas.ts) counts against the quota:
// each multipart upload's reservation, and the whole length of each unfinished resumable upload.
import { formatBytes, formatLimit, unitsOf } from '../utilities/byte-sizes';
import type { AuthUser, ServiceContext } from '../context';
import type { EntityManager } from '../db/orm';
import { type HeldBytes, sumFileBytesOfUser, sumHeldBytesByUser, sumHeldBytesOfUser } from '../db/usage';
import { AppError } from '../utilities/errors';
import { QUOTA_EXCEEDED, quotaOfUser, usageOf } from './quotas';
import { requireUser } from './guards';

/** Bytes held against the quota by uploads not yet files, and how many uploads hold them. */
export type { HeldBytes };

/** `GET /api/v1/me` and the files page. */
export interface StorageReport {
  user: AuthUser;
  usage: {
    /** The files' sizes. */
    bytes: number;
    files: number;
    /** Held by unfinished uploads (in progress, or resumable and paused) until they finish or are cancelled. */
    heldBytes: number;
    unfinishedUploads: number;
  };
  /** Bytes the user may fill; null: unlimited. */
  quota: number | null;
}

/** Every user's holds, by user id (the admin's list); a user holding nothing is absent. */
export async function heldBytesByUser(ctx: ServiceContext): Promise<Map<string, HeldBytes>> {
  return sumHeldBytesByUser(ctx.em);
}

/** The signed-in user's files, holds and quota. */
export async function myStorageReport(ctx: ServiceContext): Promise<StorageReport> {
  const user = requireUser(ctx);
  const usage = await usageOf(ctx, user.id);
  const held = await sumHeldBytesOfUser(ctx.em, user.id);
  const quota = await quotaOfUser(ctx, user.id);
  return { user, usage: { ...usage, heldBytes: held.bytes, unfinishedUploads: held.uploads }, quota };
}

/** The most the signed-in user's next upload may be, and what sets it. */
export interface UploadAllowance {
  bytes: number;
  /** `file`: MAX_UPLOAD_BYTES; `quota`: the room their quota leaves, which is less (0 when full or over). */
  limitedBy: 'file' | 'quota';
  /** Bytes the user may fill; null: unlimited. */
  quota: number | null;
}

/**
 * The smaller of the per-file limit and the room left in the user's quota (what their files and
 * unfinished uploads leave of it): what the upload page names as the limit.
 */
export async function myUploadAllowance(ctx: ServiceContext): Promise<UploadAllowance> {
  const { usage, quota } = await myStorageReport(ctx);
  const fileLimit = ctx.config.maxUploadBytes;
  if (quota === null) return { bytes: fileLimit, limitedBy: 'file', quota };
  const room = Math.max(0, quota - usage.bytes - usage.heldBytes);
  return room < fileLimit ? { bytes: room, limitedBy: 'quota', quota } : { bytes: fileLimit, limitedBy: 'file', quota };
}

/**
 * The 413 of an upload the quota has no room for, saying what is left and what holds it, so the
 * user knows whether to delete files or cancel unfinished uploads: "Storage quota exceeded:
 * 12 MiB of your 2 GiB is free; 3 unfinished uploads hold 40 MiB". Read after the refused
 * upload's own hold is gone, or inside the quota's transaction that refused it (`refusedWith`).
 * Should the figures not be readable, the bare refusal still goes out.
 */
export async function quotaExceededError(
  ctx: ServiceContext,
  userId: string,
  refusedWith?: { quota: number; em: EntityManager },
): Promise<AppError> {
  try {
    const quota = refusedWith?.quota ?? (await quotaOfUser(ctx, userId));
    if (quota === null) return new AppError('PAYLOAD_TOO_LARGE', QUOTA_EXCEEDED);
    const em = refusedWith?.em ?? ctx.em;
    const used = await sumFileBytesOfUser(em, userId);
    const held = await sumHeldBytesOfUser(em, userId);
    return new AppError('PAYLOAD_TOO_LARGE', quotaExceededMessage(quota, used, held));
  } catch (error) {
    ctx.log.warn({ err: error }, 'quota figures not read for the refusal');
    return new AppError('PAYLOAD_TOO_LARGE', QUOTA_EXCEEDED);
  }
}

/** Sizes in the quota's own units (ADR 0065): a quota set as 1 MB reads "… of your 1 MB is free". */
function quotaExceededMessage(quota: number, usedBytes: number, held: HeldBytes): string {
  const units = unitsOf(quota);
  const free = Math.max(0, quota - usedBytes - held.bytes);
  const room = `${free === 0 ? 'none' : formatBytes(free, units, 'down')} of your ${formatLimit(quota)} is free`;
  if (held.uploads === 0) return `${QUOTA_EXCEEDED}: ${room}`;
  const holders = held.uploads === 1 ? '1 unfinished upload holds' : `${held.uploads} unfinished uploads hold`;
  return `${QUOTA_EXCEEDED}: ${room}; ${holders} ${formatBytes(held.bytes, units)}`;
}
