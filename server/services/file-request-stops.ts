// When a file request stops taking files, and what that does to the guests' uploads under way
// (ADR 0048). A request stops when its owner closes it, when its expiry passes, or when it is
// deleted; a full one does not stop, as its uploads under way hold their places. An upload under
// way, a form's file still streaming or a resumable upload, becomes a file only while its request
// takes files and it still holds its place there. Closing takes every place of the request at
// once, so an upload it stopped stays stopped when the request is reopened. The form's files
// (file-requests/guest-uploads.ts) and resumable uploads (resumable-uploads.ts) both ask here before their
// content becomes a file.
import type { EntityManager } from '../db/orm';
import { FileRequestSchema, FileRequestUploadSchema, type StoredFileRequest } from '../db/entities/file-request.entity';
import { AppError } from '../utilities/errors';

/** What a guest is told by a request that takes nothing now (410). */
export const GONE_REQUEST_MESSAGES = {
  closed: 'This file request is closed: it takes no more files.',
  expired: 'This file request has expired: it takes no more files.',
  full: 'This file request is full: it has received all the files it asked for.',
} as const;

/** The request went while the upload was under way (its places with it). */
const REQUEST_GONE = 'File request not found';
/** Its request was closed, and reopened since: the upload does not come back. */
const UPLOAD_STOPPED = 'This upload was stopped when its file request was closed: send the file again.';

/** Closed by its owner, or past its expiry: the request takes no more files and stops its uploads under way. */
export function stoppedState(
  request: Pick<StoredFileRequest, 'closedAt' | 'expiresAt'>,
  now: number,
): 'closed' | 'expired' | null {
  if (request.closedAt !== null) return 'closed';
  if (request.expiresAt !== null && new Date(request.expiresAt).getTime() <= now) return 'expired';
  return null;
}

/**
 * Why an upload under way may not become a file (404: its request is gone; 410: the request is
 * closed or expired, or the upload lost its place when it was closed), or null when it may.
 */
export function uploadRefusal(
  request: Pick<StoredFileRequest, 'closedAt' | 'expiresAt'> | null,
  holdsPlace: boolean,
  now: number,
): AppError | null {
  if (!request) return new AppError('NOT_FOUND', REQUEST_GONE);
  const stopped = stoppedState(request, now);
  if (stopped) return new AppError('GONE', GONE_REQUEST_MESSAGES[stopped]);
  return holdsPlace ? null : new AppError('GONE', UPLOAD_STOPPED);
}

/**
 * Refuses an upload under way whose request no longer takes it (uploadRefusal), reading the
 * request and the upload's place in `em`: for a resumable upload, in the transaction that records
 * its file.
 */
export async function requireRequestTakesUpload(
  em: EntityManager,
  requestId: string,
  placeId: string,
  now: number,
): Promise<void> {
  const request = await em.findOne(
    FileRequestSchema,
    { id: requestId },
    { fields: ['closedAt', 'expiresAt'], disableIdentityMap: true },
  );
  const holdsPlace = (await em.count(FileRequestUploadSchema, { id: placeId })) > 0;
  const refusal = uploadRefusal(request, holdsPlace, now);
  if (refusal) throw refusal;
}
