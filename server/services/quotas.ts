// Storage quotas (ADR 0018). A user's usage is the size of their files plus the bytes their
// uploads in progress hold (a resumable upload holds its whole length from the start, ADR 0019). An upload holds bytes ahead of what it has received, in steps,
// under a lock on the user's row. So concurrent uploads, on one instance or several, can
// never together pass the quota, and an upload is refused the moment it would cross it.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/knex';
import { Transform, type TransformCallback } from 'node:stream';
import type { Config } from '../config';
import type { AuthUser, ServiceContext, UserQuotaColumns } from '../context';
import { UploadReservationSchema } from '../db/entities/upload-reservation.entity';
import { requireUser } from './sessions';

export const QUOTA_EXCEEDED = 'Storage quota exceeded';
/** Bytes held ahead of those received: one locked transaction per step, not per chunk. */
const HOLD_STEP_BYTES = 8 * 1024 * 1024;
/** A hold is refreshed at least this often while its upload is alive... */
const REFRESH_EVERY_MS = 60_000;
/** ...so one not refreshed for this long was left by a crash, and is swept. */
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
type SumRow = { bytes?: number | string | null } | undefined;

export async function usageOf(ctx: ServiceContext, userId: string): Promise<Usage> {
  const row: { files?: number | string; bytes?: number | string | null } | undefined = await ctx.em
    .getKnex()('files')
    .where({ user_id: userId })
    .count('* as files')
    .sum('size as bytes')
    .first();
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Thrown inside the upload stream when the next bytes would pass the quota. */
export class QuotaExceededError extends Error {
  constructor() {
    super(QUOTA_EXCEEDED);
  }
}

/**
 * The bytes one upload holds against its user's quota: grown as bytes arrive (`meter()`),
 * given back by `release()` once the file is recorded or the upload has failed.
 */
export class QuotaHold {
  private held = 0;
  private refreshedAt = 0;
  /** Set once the upload was refused for the quota (the store may report the stream's end its own way). */
  exceeded = false;
  private readonly id = randomUUID();

  private constructor(
    private readonly ctx: ServiceContext,
    private readonly userId: string,
    private readonly quotaBytes: number,
  ) {}

  /** A hold for the user's next upload, or null when no quota applies to them. */
  static async forUser(ctx: ServiceContext, userId: string): Promise<QuotaHold | null> {
    const quota = await quotaOfUser(ctx, userId);
    return quota === null ? null : new QuotaHold(ctx, userId, quota);
  }

  /**
   * A pass-through stream that holds each chunk's bytes before letting it on. `expectedBytes`
   * (the request's declared length) is held, as far as there is room, with the first chunk:
   * uploads that grew their holds step by step side by side could each take half of the room
   * and all fail together, where the first would have fit.
   */
  meter(expectedBytes?: number): Transform {
    let received = 0;
    return new Transform({
      highWaterMark: 1024 * 1024,
      transform: (chunk: Buffer, _encoding, callback: TransformCallback) => {
        const ahead = received === 0 ? (expectedBytes ?? 0) : 0;
        received += chunk.length;
        this.cover(received, ahead).then(() => callback(null, chunk), callback);
      },
    });
  }

  /**
   * Makes sure `bytes` are held, holding a step more (or up to `ahead`, when there is room for it)
   * when it must ask; throws past the quota.
   */
  private async cover(bytes: number, ahead = 0): Promise<void> {
    const now = this.ctx.clock.now();
    if (bytes <= this.held && now - this.refreshedAt < REFRESH_EVERY_MS) return;
    await withAvailableBytes(this.ctx, this.userId, this.quotaBytes, this.id, async (em, available) => {
      if (bytes > available) {
        this.exceeded = true;
        throw new QuotaExceededError();
      }
      const held = Math.min(available, Math.max(bytes, ahead, this.held + HOLD_STEP_BYTES));
      const row = { bytes: held, updatedAt: new Date(now) };
      const updated = await em.nativeUpdate(UploadReservationSchema, { id: this.id }, row);
      if (updated === 0) await em.insert(UploadReservationSchema, { id: this.id, userId: this.userId, ...row });
      this.held = held;
      this.refreshedAt = now;
    });
  }

  /** Gives the held bytes back: the file is recorded (its size counts now) or the upload failed. */
  async release(): Promise<void> {
    if (this.held === 0) return;
    try {
      await this.ctx.em.nativeDelete(UploadReservationSchema, { id: this.id });
      this.held = 0;
    } catch (error) {
      // Not the upload's failure: the hold goes stale and the sweep gives the bytes back.
      this.ctx.log.warn({ err: error }, 'quota hold not released; left to the sweep');
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
    const inTransaction = (table: string) => em.getKnex()(table).transacting(em.getTransactionContext()!);
    const lockUser = inTransaction('users').where({ id: userId });
    await (ctx.config.database.dialect === 'postgresql' ? lockUser.forUpdate() : lockUser).first('id');
    const used: SumRow = await inTransaction('files').where({ user_id: userId }).sum('size as bytes').first();
    const holds = inTransaction('upload_reservations').where({ user_id: userId });
    const held: SumRow = await (exceptHold ? holds.whereNot({ id: exceptHold }) : holds).sum('bytes as bytes').first();
    const resumable: SumRow = await inTransaction('resumable_uploads').where({ user_id: userId }).whereNull('finished_at').sum('length as bytes').first();
    const available = quotaBytes - Number(used?.bytes ?? 0) - Number(held?.bytes ?? 0) - Number(resumable?.bytes ?? 0);
    return decide(em, available);
  });
}

/** The quota of a user by id; null: unlimited. */
export async function quotaOfUser(ctx: ServiceContext, userId: string): Promise<number | null> {
  // Read with the session already, in this same request.
  if (ctx.userQuotaColumns && ctx.user?.id === userId) return quotaOf(ctx.config, ctx.userQuotaColumns);
  // Asked before every upload otherwise (an API token): written out (db/direct-sql.ts).
  const [user] = await ctx.sql.select<UserQuotaColumns>(QUOTA_OF_USER, [userId]);
  return user ? quotaOf(ctx.config, user) : null;
}

const QUOTA_OF_USER = 'select "has_own_quota" as "hasOwnQuota", "quota_bytes" as "quotaBytes" from "users" where "id" = ?';

/** Holds not refreshed for STALE_RESERVATION_MS: their upload died with its instance. */
export async function removeStaleReservations(ctx: Pick<ServiceContext, 'em' | 'clock'>): Promise<number> {
  return ctx.em.nativeDelete(UploadReservationSchema, { updatedAt: { $lt: new Date(ctx.clock.now() - STALE_RESERVATION_MS) } });
}

export interface MyStorage {
  user: AuthUser;
  usage: Usage;
  /** Bytes the user may fill; null: unlimited. */
  quota: number | null;
}

/** The signed-in user's usage against their quota, for the files page and `GET /api/v1/me`. */
export async function myStorage(ctx: ServiceContext): Promise<MyStorage> {
  const user = requireUser(ctx);
  return { user, usage: await usageOf(ctx, user.id), quota: await quotaOfUser(ctx, user.id) };
}
