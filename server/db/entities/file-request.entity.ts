import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * A file request (ADR 0048): a link, `/r/<id>`, through which people without an account send
 * files into its owner's space. What arrives is the owner's files, marked with the request.
 */
export interface StoredFileRequest {
  /** 128 random bits, like a file's id: the link is public, so it must not be guessable. */
  id: string;
  userId: string;
  /** Shown to the guest: what is asked for. */
  title: string;
  /** Shown to the guest under the title; empty for none. */
  message: string;
  createdAt: Date;
  /** After this the link answers 410; null: never. */
  expiresAt: Date | null;
  /** Files the request takes in all; null: no limit. */
  maxFiles: number | null;
  /** Bytes the request takes in all; null: no limit (the owner's quota and MAX_UPLOAD_SIZE still apply). */
  maxBytes: number | null;
  /** bcrypt hash of the password guests type first; null: no password. */
  passwordHash: string | null;
  /** Whether a guest must leave a name with their files. */
  requireName: boolean;
  /** When the owner closed it; null while open. */
  closedAt: Date | null;
  /** When the owner last looked at what arrived: later files are "new". */
  seenAt: Date | null;
}

export const FileRequestSchema = new EntitySchema<StoredFileRequest>({
  name: 'FileRequest',
  tableName: 'file_requests',
  // A user's requests, newest first, read this index in order.
  indexes: [{ name: 'file_requests_user_id_created_at_index', properties: ['userId', 'createdAt'] }],
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: false,
    },
    title: { type: 'text' },
    message: { type: 'text' },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date', nullable: true },
    maxFiles: { type: 'integer', nullable: true },
    maxBytes: { type: WholeNumberType, nullable: true },
    passwordHash: { type: 'string', nullable: true },
    requireName: { type: 'boolean', default: false },
    closedAt: { type: 'Date', nullable: true },
    seenAt: { type: 'Date', nullable: true },
  },
});

/**
 * A guest's upload under way into a request: its place among the request's files and the bytes
 * it holds against the request's byte limit, taken under the request's row lock before a byte
 * is stored and given back once the file is recorded or refused. A row not refreshed for
 * STALE_RESERVATION_MS was left by a receiver that is gone and holds nothing any more.
 */
export interface FileRequestUpload {
  id: string;
  requestId: string;
  /** The id of the file it becomes: once that file is recorded, the file counts and this row no more. */
  fileId: string;
  bytes: number;
  updatedAt: Date;
}

export const FileRequestUploadSchema = new EntitySchema<FileRequestUpload>({
  name: 'FileRequestUpload',
  tableName: 'file_request_uploads',
  properties: {
    id: { type: 'string', primary: true },
    requestId: {
      kind: 'm:1',
      entity: 'FileRequest',
      fieldName: 'request_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'file_request_uploads_request_id_index',
    },
    fileId: { type: 'string' },
    bytes: { type: WholeNumberType },
    updatedAt: { type: 'Date' },
  },
});
