// What a file request is now (ADR 0048): open, or closed, expired or full, and why it takes no
// files; shared by the owner's side, the guest's side and the metering of its places.
import type { ServiceContext } from '../../context';
import { FileRequestSchema, type StoredFileRequest } from '../../db/entities/file-request.entity';
import { type RequestOwnerRow, selectRequestOwner } from '../../db/file-requests';
import type { EntityManager } from '../../db/orm';
import { AppError } from '../../utilities/errors';
import { GONE_REQUEST_MESSAGES, stoppedState } from '../file-request-stops';

export type FileRequestState = 'open' | 'closed' | 'expired' | 'full';

export function stateOf(
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

export type OwnerRow = RequestOwnerRow;

/** A request by its id; null when there is none (or the id could not be one). */
export async function findRequest(ctx: ServiceContext, requestId: string): Promise<StoredFileRequest | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(requestId)) return null;
  return ctx.em.findOne(FileRequestSchema, { id: requestId }, { disableIdentityMap: true });
}

export async function ownerOf(
  ctx: ServiceContext,
  request: StoredFileRequest,
  em?: EntityManager,
): Promise<OwnerRow | null> {
  // Inside the request's lock (`em`), on its transaction's connection.
  return selectRequestOwner(ctx.sql, em, request.userId);
}

/** Why a request takes nothing now, or null while it takes files. */
export function refusalOf(
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

export function goneError(state: Exclude<FileRequestState, 'open'>): AppError {
  return new AppError('GONE', GONE_REQUEST_MESSAGES[state]);
}
