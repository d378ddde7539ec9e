import { EntitySchema } from '@mikro-orm/core';

/**
 * One file's place in a collection: its order and the relative path it has there (and in the
 * archive), e.g. `photos/2026/beach.jpg`. Removing the file or the collection removes the row.
 */
export interface CollectionFile {
  collectionId: string;
  fileId: string;
  /** 0, 1, 2…: the order the collection shows and archives its files in. */
  position: number;
  /** Normalised: `/`-separated segments, none empty, `.` or `..` (ADR 0036). */
  path: string;
}

export const CollectionFileSchema = new EntitySchema<CollectionFile>({
  name: 'CollectionFile',
  tableName: 'collection_files',
  // A collection's files in order (its page, its archive, the next place) read this index in order.
  indexes: [{ name: 'collection_files_collection_id_position_index', properties: ['collectionId', 'position'] }],
  properties: {
    collectionId: {
      kind: 'm:1',
      entity: 'Collection',
      fieldName: 'collection_id',
      mapToPk: true,
      primary: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      // The primary key starts with it already.
      index: false,
    },
    fileId: {
      kind: 'm:1',
      entity: 'File',
      fieldName: 'file_id',
      mapToPk: true,
      primary: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      // Deleting a file finds its places in collections by this index.
      index: 'collection_files_file_id_index',
    },
    position: { type: 'integer' },
    path: { type: 'text' },
  },
});
