import { EntitySchema } from '@mikro-orm/core';

/**
 * A collection: several of one user's files behind one link, `/c/<id>`, with the share controls
 * a file has (one password opens the whole collection; its files' own links keep their own).
 */
export interface StoredCollection {
  /** 128 random bits, like a file's id: the link is public, so it must not be guessable. */
  id: string;
  userId: string;
  title: string;
  createdAt: Date;
  /** After this the collection's link answers 410; null: never. */
  expiresAt: Date | null;
  /** "Download all" archives allowed in all; null: no limit. */
  maxDownloads: number | null;
  /** Archives started from their first byte by others than the owner. */
  downloads: number;
  /** bcrypt hash of the collection's password; null: no password. */
  passwordHash: string | null;
  /**
   * Bumped in the transaction of every change of its files, their paths or their order (files
   * deleted on their own go with a cascade instead, which the count of its files shows): what
   * its "Download all" archive's plan is kept by (ADR 0055).
   */
  filesVersion: number;
}

export const CollectionSchema = new EntitySchema<StoredCollection>({
  name: 'Collection',
  tableName: 'collections',
  // A user's list, newest first, reads this index in order.
  indexes: [{ name: 'collections_user_id_created_at_index', properties: ['userId', 'createdAt'] }],
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
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date', nullable: true, index: 'collections_expires_at_index' },
    maxDownloads: { type: 'integer', nullable: true },
    downloads: { type: 'integer', default: 0 },
    passwordHash: { type: 'string', nullable: true },
    filesVersion: { type: 'integer', default: 0 },
  },
});
