// A collection's files version (ADR 0055): bumped in the transaction of every change that
// changes what its "Download all" archive holds, so that an archive plan kept by any instance
// is laid out again at the next request. A file deleted on its own needs no bump: it leaves its
// collections with a cascade, which their count of files shows.
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { CollectionSchema } from './entities/collection.entity';

/** Its files, their paths or their order changed. */
export async function collectionFilesChanged(em: EntityManager, collectionId: string): Promise<void> {
  await em.nativeUpdate(CollectionSchema, { id: collectionId }, { filesVersion: raw('files_version + 1') });
}

/** A file's own expiry or download limit changed: whether its collections hold it may change with them. */
export async function fileLinkChanged(em: EntityManager, fileId: string): Promise<void> {
  await em.execute(
    'update "collections" set "files_version" = "files_version" + 1 ' +
      'where "id" in (select "collection_id" from "collection_files" where "file_id" = ?)',
    [fileId],
  );
}
