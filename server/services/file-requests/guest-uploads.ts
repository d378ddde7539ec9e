// File requests (ADR 0048), a guest's uploads into a request: a form's files, and resumable
// uploads (tus, ADR 0019) for files too large to send in one body. Each takes a place among the
// request's files before a byte is stored (request-metering.ts); the owner's quota applies on
// top, through the owner's own upload path (uploadFile).
import type { ServiceContext } from '../../context';
import { FileRequestUploadSchema } from '../../db/entities/file-request.entity';
import { FileSchema } from '../../db/entities/file.entity';
import { ResumableUploadSchema, type ResumableUpload } from '../../db/entities/resumable-upload.entity';
import { AppError } from '../../utilities/errors';
import { stoppedState, uploadRefusal } from '../file-request-stops';
import { cleanFileName, type FileDto, type NewUpload, newFileId, uploadFile } from '../files';
import { admitGuestUpload } from '../login-throttle';
import { RequestPlace, requestUsageOf, TOO_LARGE_FOR_REQUEST, underRequestLock } from '../request-metering';
import { createResumableUpload, requireUnexpired } from '../resumable-uploads';
import type { ShareProof } from '../share-access';
import { actingAsOwner, type CheckedGuest, checkGuest, type GuestFields } from './guest-access';
import { findRequest, goneError, ownerOf, refusalOf } from './request-state';

/** What a guest is told of a file they sent: its name and size, never its link or its owner. */
export interface SentFileDto {
  originalName: string;
  size: number;
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
      const usage = await requestUsageOf(ctx.em, ctx, request.id, null);
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
    const usage = await requestUsageOf(em, ctx, current.id, null);
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
