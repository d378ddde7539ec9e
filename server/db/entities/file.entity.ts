import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

export interface StoredFile {
  id: string;
  /** Owner's user id; equals the `sub` claim of the owner's session token. */
  userId: string;
  originalName: string;
  mimeType: string;
  size: number;
  /** `<id>` plus the sanitized extension; the content's key in storage. Column `stored_name`. */
  storedName: string;
  createdAt: Date;
  /** After this the share link answers 410 and the sweeper removes the file; null: never. */
  expiresAt: Date | null;
  /** Downloads allowed in all; null: no limit. */
  maxDownloads: number | null;
  /**
   * Downloads so far: answers that sent content, by anyone but the owner, other than ranges
   * continuing a download counted before (ADR 0056).
   */
  downloads: number;
  /**
   * Looks at the share page by anyone but the owner, counted apart from downloads: the page's own
   * preview is no download (ADR 0066).
   */
  views: number;
  /**
   * When a download of the link was last counted in its row (links with a limit; null: none
   * yet). A used-up link stays until the claims on its downloads have run out (ADR 0056).
   */
  lastDownloadAt?: Date | null;
  /** bcrypt hash of the share password; null: no password. */
  passwordHash: string | null;
  /** CRC-32 of the content (what a ZIP entry records, ADR 0036); null until computed. */
  crc32?: number | null;
  /** The file request it arrived through (ADR 0048); null for the owner's own uploads or once the request is deleted. */
  requestId?: string | null;
  /** The name the guest left with it, as typed (text, never markup); null: none. */
  guestName?: string | null;
  /** The note the guest left with it, as typed; null: none. */
  guestNote?: string | null;
}

export const FileSchema = new EntitySchema<StoredFile>({
  name: 'File',
  tableName: 'files',
  indexes: [
    // A user's list, newest first, reads this index in order.
    { name: 'files_user_id_created_at_index', properties: ['userId', 'createdAt'] },
    // A search of a user's names reads them here, without the rows (ADR 0042).
    { name: 'files_user_id_original_name_index', properties: ['userId', 'originalName'] },
  ],
  properties: {
    id: { type: 'string', primary: true },
    // The owner's id (mapToPk), with the foreign key both migrations create: a user's files go with the user.
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: false,
    },
    originalName: { type: 'string' },
    mimeType: { type: 'string' },
    size: { type: WholeNumberType },
    storedName: { type: 'string', unique: true },
    createdAt: { type: 'Date' },
    // The sweeper looks for what has expired.
    expiresAt: { type: 'Date', nullable: true, index: 'files_expires_at_index' },
    // ...and for links that used up their downloads (only limited ones have a limit).
    maxDownloads: { type: 'integer', nullable: true, index: 'files_max_downloads_index' },
    downloads: { type: 'integer', default: 0 },
    views: { type: 'integer', default: 0 },
    lastDownloadAt: { type: 'Date', nullable: true },
    passwordHash: { type: 'string', nullable: true },
    // Null until known: files received before it was kept, or not yet computed.
    crc32: { type: WholeNumberType, nullable: true },
    // A request's files are counted under its lock: by this index. A plain column, not a key:
    // deleting a request leaves its files to their owner (the column is cleared).
    requestId: { type: 'string', nullable: true, index: 'files_request_id_index' },
    guestName: { type: 'text', nullable: true },
    guestNote: { type: 'text', nullable: true },
  },
});
