// The metering of a file request's places (ADR 0048), beside the owner's quota (quotas.ts). The
// request's limits are exact under concurrency: before a byte is stored, each guest upload takes
// a place among the request's files, a row of `file_request_uploads` written under a lock on the
// request's row (PostgreSQL: FOR UPDATE; SQLite: its single writer). That row then holds the
// bytes the upload has received against the request's byte limit, as they arrive and under the
// same lock, as an upload's hold does against its owner's quota.
import { randomUUID } from 'node:crypto';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import type { ServiceContext } from '../context';
import { FileRequestSchema, FileRequestUploadSchema, type StoredFileRequest } from '../db/entities/file-request.entity';
import { ResumableUploadSchema } from '../db/entities/resumable-upload.entity';
import { lockFileRequestRow, sumRequestUsage } from '../db/file-requests';
import type { EntityManager } from '../db/orm';
import { AppError } from '../utilities/errors';
import { requireRequestTakesUpload, stoppedState } from './file-request-stops';
import { goneError, ownerOf, refusalOf } from './file-requests/request-state';
import { STALE_RESERVATION_MS } from './quotas';

/** Bytes an upload holds ahead of what it received while the request's room is ample. */
const HOLD_STEP_BYTES = 1024 * 1024;
const AMPLE_ROOM_BYTES = 16 * 1024 * 1024;
const REFRESH_EVERY_MS = 60_000;

export const TOO_LARGE_FOR_REQUEST = 'This file is larger than the room left in this file request.';
const REQUEST_GONE = 'File request not found';

/** What the request takes now: files and bytes received so far and held by uploads under way. */
export async function requestUsageOf(
  em: EntityManager,
  ctx: ServiceContext,
  requestId: string,
  exceptUpload: string | null,
): Promise<{ files: number; bytes: number; heldFiles: number; heldBytes: number }> {
  const freshSince = ctx.clock.now() - STALE_RESERVATION_MS;
  const postgres = ctx.config.database.dialect === 'postgresql';
  return sumRequestUsage(em, postgres, requestId, exceptUpload, { now: ctx.clock.now(), freshSince });
}

/**
 * Runs `decide` in a transaction holding the request's row as a lock, with the request as it is
 * then (null: deleted meanwhile): decisions about one request are taken one at a time, on every
 * instance (SQLite has a single writer; FOR UPDATE is left out there).
 */
export function underRequestLock<T>(
  ctx: ServiceContext,
  requestId: string,
  decide: (em: EntityManager, request: StoredFileRequest | null) => Promise<T>,
): Promise<T> {
  return ctx.em.transactional(async (em) => {
    if (!(await lockFileRequestRow(em, ctx.config.database.dialect === 'postgresql', requestId)))
      return decide(em, null);
    return decide(em, await em.findOne(FileRequestSchema, { id: requestId }, { disableIdentityMap: true }));
  });
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

/**
 * One guest upload's place in a request (its `file_request_uploads` row): taken before the
 * first byte, holding the bytes received against the request's byte limit, refreshed while the
 * upload lasts, removed once the file is recorded or refused.
 */
export class RequestPlace {
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
      const usage = await requestUsageOf(em, ctx, requestId, null);
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
      const usage = await requestUsageOf(em, this.ctx, this.requestId, this.id);
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
