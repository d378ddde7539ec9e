import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * A resumable (tus) upload under way, or finished in the last day (ADR 0019). The bytes live in
 * the content store's partial area; this row is the truth about how many of them are durable
 * (`receivedBytes`), so a HEAD on any instance, after any restart, answers the right offset.
 * It becomes a file once every byte is in: `fileId` and `storedName` are chosen at creation.
 */
export interface ResumableUpload {
  id: string;
  userId: string;
  /** The id the file will have, and the content's key (its id and extension). */
  fileId: string;
  storedName: string;
  originalName: string;
  mimeType: string;
  /** Upload-Length: the size the upload was declared with. */
  length: number;
  /** Bytes stored durably so far: the tus offset. */
  receivedBytes: number;
  /** What the content store needs to carry on (JSON, opaque here); null once finished. */
  contentState: string | null;
  /** The share settings asked for at creation (JSON; the password already hashed). */
  shareSettings: string | null;
  createdAt: Date;
  /** Unfinished by then, the upload and its bytes are swept. */
  expiresAt: Date;
  finishedAt: Date | null;
  /** The request writing to it (one at a time, on any instance) and until when its claim holds. */
  lockToken: string | null;
  lockExpiresAt: Date | null;
  /** Another request asked the holder to let go (a client resuming after a lost connection). */
  releaseRequested: boolean;
  /** The collection the file joins when it is made (Upload-Metadata `collection`), at `collectionPath`. */
  collectionId: string | null;
  collectionPath: string | null;
  /** The file request a guest sends it through (ADR 0048), with the name and note they left; null: the owner's own. */
  requestId?: string | null;
  guestName?: string | null;
  guestNote?: string | null;
}

export const ResumableUploadSchema = new EntitySchema<ResumableUpload>({
  name: 'ResumableUpload',
  tableName: 'resumable_uploads',
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'resumable_uploads_user_id_index',
    },
    fileId: { type: 'string' },
    storedName: { type: 'string' },
    originalName: { type: 'text' },
    mimeType: { type: 'string' },
    length: { type: WholeNumberType },
    receivedBytes: { type: WholeNumberType },
    contentState: { type: 'text', nullable: true },
    shareSettings: { type: 'text', nullable: true },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date', index: 'resumable_uploads_expires_at_index' },
    finishedAt: { type: 'Date', nullable: true },
    lockToken: { type: 'string', nullable: true },
    lockExpiresAt: { type: 'Date', nullable: true },
    releaseRequested: { type: 'boolean', default: false },
    collectionId: { type: 'string', nullable: true },
    collectionPath: { type: 'text', nullable: true },
    requestId: { type: 'string', nullable: true },
    guestName: { type: 'text', nullable: true },
    guestNote: { type: 'text', nullable: true },
  },
});
