import { EntitySchema } from '@mikro-orm/core';

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
}

export const FileSchema = new EntitySchema<StoredFile>({
  name: 'File',
  tableName: 'files',
  properties: {
    id: { type: 'string', primary: true },
    userId: { type: 'string', index: true },
    originalName: { type: 'string' },
    mimeType: { type: 'string' },
    size: { type: 'number' },
    storedName: { type: 'string', unique: true },
    createdAt: { type: 'Date' },
  },
});
