// Storage quotas (ADR 0018). A user's usage is the size of their files plus the bytes their
// uploads in progress hold (a resumable upload holds its whole length from the start, ADR 0019).
// A multipart upload holds the bytes it has received, as they arrive, under a lock on the
// user's row: so concurrent uploads, on one instance or several, can never together pass the
// quota, and an upload is refused only when the bytes received by all of them would pass it.
// The same row is the upload's sign of life for the storage sweep (ADR 0029).
import { randomUUID } from 'node:crypto';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Config } from '../config';
import type { ServiceContext, UserQuotaColumns } from '../context';
import { UploadReservationSchema } from '../db/entities/upload-reservation.entity';
import type { EntityManager } from '../db/orm';
import { countFilesAndBytesOfUser, lockUserAndSumQuotaUse, selectQuotaColumnsOfUser } from '../db/usage';

export const QUOTA_EXCEEDED = 'Storage quota exceeded';
/** While room is ample, an upload holds up to this much ahead of what it received: one locked transaction per step, not per chunk. */
const HOLD_STEP_BYTES = 8 * 1024 * 1024;
/**
 * Holding ahead only leaves the other uploads at least this much room: closer to the quota,
 * holds are exactly the bytes received (a transaction per chunk), so that no upload is refused
 * for bytes another holds and may never receive.
 */
const AMPLE_ROOM_BYTES = 64 * 1024 * 1024;
/** A row is refreshed at least this often while its upload is being received... */
const REFRESH_EVERY_MS = 60_000;
/** ...checked this often (no query unless a refresh is due). */
const HEARTBEAT_CHECK_MS = 1000;
/** ...so one not refreshed for this long was left by a receiver that is gone, and is swept. */
export const STALE_RESERVATION_MS = 15 * 60_000;

export interface Usage {
  files: number;
  bytes: number;
}

/** The quota that applies to a user, in bytes; null: unlimited. */
export function quotaOf(config: Pick<Config, 'defaultQuotaBytes'>, user: UserQuotaColumns): number | null {
  return user.hasOwnQuota ? (user.quotaBytes === null ? null : Number(user.quotaBytes)) : config.defaultQuotaBytes;
}

/** The files a user has stored and their bytes (uploads in progress not included). */
export async function usageOf(ctx: ServiceContext, userId: string): Promise<Usage> {
  return countFilesAndBytesOfUser(ctx.em, userId);
}

/** Thrown inside the upload stream when the next bytes would pass the quota. */
class QuotaExceededError extends Error {
  constructor() {
    super(QUOTA_EXCEEDED);
  }
}

/**
 * One multipart upload's row of `upload_reservations`, from its first byte until the file is
 * recorded or the upload has failed (`release()`):
 * - its sign of life (ADR 0029): refreshed on a timer at least once a minute for as long as this
 *   process handles the upload, bytes arriving or not (a slow link, a store that keeps it
 *   waiting). An upload without a quota writes its row only at its first refresh: one that ends
 *   within the minute costs no query, and the sweep leaves content that young alone anyway;
 * - with a quota, the bytes it holds, grown as they arrive (`metered()`).
 */
export class QuotaHold {
  private held = 0;
  /** Whether the row exists, as far as this upload knows. */
  private hasRow = false;
  private refreshedAt: number;
  private heartbeat: NodeJS.Timeout | null;
  private refreshing = false;
  /** The row's writes, one at a time: a refresh never races a chunk's hold or the release. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Set once the upload was refused for the quota (the store may report the stream's end its own way). */
  exceeded = false;
  private readonly id = randomUUID();

  private constructor(
    private readonly ctx: ServiceContext,
    private readonly userId: string,
    private readonly storedName: string,
    private readonly quotaBytes: number | null,
  ) {
    this.refreshedAt = ctx.clock.now();
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_CHECK_MS);
    this.heartbeat.unref();
  }

  /** The hold of the upload about to write `storedName` (with or without a quota: every upload has one). */
  static async forUpload(ctx: ServiceContext, userId: string, storedName: string): Promise<QuotaHold> {
    return new QuotaHold(ctx, userId, storedName, await quotaOfUser(ctx, userId));
  }

  /** `content` with each chunk's bytes held before they go on; `content` itself when no quota applies. */
  metered(content: Readable, expectedBytes?: number): Readable {
    return this.quotaBytes === null ? content : pipeline(content, this.meter(this.quotaBytes, expectedBytes), () => {});
  }

  /**
   * A pass-through stream that holds each chunk's bytes before letting it on. `expectedBytes`
   * (the request's declared length) caps what is held ahead: never more than the body can bring.
   */
  private meter(quotaBytes: number, expectedBytes?: number): Transform {
    let received = 0;
    return new Transform({
      highWaterMark: 1024 * 1024,
      transform: (chunk: Buffer, _encoding, callback: TransformCallback) => {
        received += chunk.length;
        if (received <= this.held) return callback(null, chunk);
        const upTo = received;
        this.serially(() => this.cover(quotaBytes, upTo, expectedBytes)).then(() => callback(null, chunk), callback);
      },
    });
  }

  /**
   * Holds `received` bytes, and a step more while room is ample; past the quota, refuses the
   * upload and gives its hold back in the same transaction, so that an upload racing it finds
   * the room at its next chunk (of two that cannot both fit, one is refused and one completes).
   */
  private async cover(quotaBytes: number, received: number, expectedBytes?: number): Promise<void> {
    const now = this.ctx.clock.now();
    const held = await withAvailableBytes(this.ctx, this.userId, quotaBytes, this.id, async (em, available) => {
      if (received > available) {
        if (this.hasRow) await em.nativeDelete(UploadReservationSchema, { id: this.id });
        return null;
      }
      const stillDeclared = expectedBytes === undefined ? HOLD_STEP_BYTES : Math.max(0, expectedBytes - received);
      const ahead = Math.min(HOLD_STEP_BYTES, stillDeclared, Math.max(0, available - received - AMPLE_ROOM_BYTES));
      await this.writeRow(em, received + ahead, now);
      return received + ahead;
    });
    if (held === null) {
      this.hasRow = false;
      this.held = 0;
      this.exceeded = true;
      this.stopHeartbeat();
      throw new QuotaExceededError();
    }
    this.held = held;
    this.hasRow = true;
    this.refreshedAt = now;
  }

  private async writeRow(em: EntityManager, bytes: number, now: number): Promise<void> {
    const row = { bytes, updatedAt: new Date(now) };
    const updated = this.hasRow ? await em.nativeUpdate(UploadReservationSchema, { id: this.id }, row) : 0;
    if (updated === 0)
      await em.insert(UploadReservationSchema, {
        id: this.id,
        userId: this.userId,
        storedName: this.storedName,
        ...row,
      });
  }

  /** The timer's tick: a refresh when one is due. */
  private beat(): void {
    if (this.refreshing || this.ctx.clock.now() - this.refreshedAt < REFRESH_EVERY_MS) return;
    this.refreshing = true;
    this.serially(() => this.refresh())
      .catch((error) => this.ctx.log.warn({ err: error }, 'upload row not refreshed; tried again at the next tick'))
      .finally(() => (this.refreshing = false));
  }

  /** Tells the sweep the upload is still being received (no lock: only the time changes). */
  private async refresh(): Promise<void> {
    const now = this.ctx.clock.now();
    if (!this.heartbeat || now - this.refreshedAt < REFRESH_EVERY_MS) return;
    const updated = this.hasRow
      ? await this.ctx.em.nativeUpdate(UploadReservationSchema, { id: this.id }, { updatedAt: new Date(now) })
      : 0;
    if (updated === 0) {
      // The first refresh of an upload holding nothing yet, or a row swept as stale while this
      // process could not refresh it: a row holding nothing, and the next chunk holds again under the lock.
      await this.ctx.em.insert(UploadReservationSchema, {
        id: this.id,
        userId: this.userId,
        storedName: this.storedName,
        bytes: 0,
        updatedAt: new Date(now),
      });
      this.held = 0;
    }
    this.hasRow = true;
    this.refreshedAt = now;
  }

  private serially<T>(write: () => Promise<T>): Promise<T> {
    const done = this.writes.then(write);
    this.writes = done.catch(() => undefined);
    return done;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** Removes the row: the file is recorded (its size counts now) or the upload failed. */
  async release(): Promise<void> {
    this.stopHeartbeat();
    await this.writes;
    if (!this.hasRow) return;
    try {
      await this.ctx.em.nativeDelete(UploadReservationSchema, { id: this.id });
      this.hasRow = false;
      this.held = 0;
    } catch (error) {
      // Not the upload's failure: the row goes stale and the sweep gives the bytes back.
      this.ctx.log.warn({ err: error }, 'upload row not removed; left to the sweep');
    }
  }
}

/**
 * Runs `decide` in a transaction that holds the user's row as a lock, with the bytes still
 * available to them: the quota less their files, the holds of their other uploads
 * (`exceptHold` is the caller's own) and the whole declared length of each resumable upload
 * they have begun and not finished. Decisions for one user are taken one at a time, on every
 * instance (SQLite has a single writer already; FOR UPDATE is left out there).
 */
export async function withAvailableBytes<T>(
  ctx: ServiceContext,
  userId: string,
  quotaBytes: number,
  exceptHold: string | null,
  decide: (em: EntityManager, available: number) => Promise<T>,
): Promise<T> {
  return ctx.em.transactional(async (em) => {
    const postgres = ctx.config.database.dialect === 'postgresql';
    const use = await lockUserAndSumQuotaUse(em, postgres, userId, exceptHold);
    const available = quotaBytes - use.filesBytes - use.heldBytes - use.resumableBytes;
    return decide(em, available);
  });
}

/** The quota of a user by id; null: unlimited. */
export async function quotaOfUser(ctx: ServiceContext, userId: string): Promise<number | null> {
  // Read with the session already, in this same request.
  if (ctx.userQuotaColumns && ctx.user?.id === userId) return quotaOf(ctx.config, ctx.userQuotaColumns);
  // Asked before every upload otherwise (an API token).
  const user = await selectQuotaColumnsOfUser(ctx.sql, userId);
  return user ? quotaOf(ctx.config, user) : null;
}

/** Rows not refreshed for STALE_RESERVATION_MS: their receiver is gone (ADR 0029). */
export async function removeStaleReservations(ctx: Pick<ServiceContext, 'em' | 'clock'>): Promise<number> {
  return ctx.em.nativeDelete(UploadReservationSchema, {
    updatedAt: { $lt: new Date(ctx.clock.now() - STALE_RESERVATION_MS) },
  });
}

/** The keys of the content that uploads still being received write: their rows are fresh (ADR 0029). */
export async function liveUploadKeys(ctx: Pick<ServiceContext, 'em' | 'clock'>): Promise<Set<string>> {
  const rows = await ctx.em.find(
    UploadReservationSchema,
    { updatedAt: { $gte: new Date(ctx.clock.now() - STALE_RESERVATION_MS) }, storedName: { $ne: null } },
    { fields: ['storedName'], disableIdentityMap: true },
  );
  return new Set(rows.flatMap((row) => (row.storedName ? [row.storedName] : [])));
}

/** Every row: on a start where this process is the data's only writer, none of their uploads is under way (ADR 0028). */
export async function removeAllReservations(ctx: Pick<ServiceContext, 'em'>): Promise<number> {
  return ctx.em.nativeDelete(UploadReservationSchema, {});
}
