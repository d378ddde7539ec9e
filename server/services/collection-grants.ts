// A collection's password opens its files too (ADR 0067): the grant its page leaves opens the
// page, thumbnail and raw link of each file in it, so that a visitor is not asked again for each
// file the collection lists. Which files those are is read from the database on each request,
// never from the grant: it names a collection only, so a file taken out of the collection is no
// longer opened by it, and a grant opens nothing of another collection. The collection must be
// live (not expired, not used up), its password the one the grant was given for, its owner
// enabled; the file's own controls (expiry, download limit) still hold, and are checked first.
import type { CollectionGrant } from '../auth/cookie';
import { verifyShareGrant } from '../auth/share-grant';
import type { ServiceContext } from '../context';
import { selectGrantingCollections } from '../db/collections';
import { goneReason } from './share-settings';

/** Whether one of the visitor's collection grants opens this file: a file of that collection, as it is now. */
export async function opensAsCollectionFile(
  ctx: ServiceContext,
  fileId: string,
  grants: readonly CollectionGrant[],
): Promise<boolean> {
  if (grants.length === 0) return false;
  const collections = await selectGrantingCollections(
    ctx.sql,
    fileId,
    grants.map((grant) => grant.collectionId),
  );
  const now = ctx.clock.now();
  const nowSeconds = Math.floor(now / 1000);
  for (const collection of collections) {
    const state = {
      expiresAt: collection.expiresAt === null ? null : new Date(collection.expiresAt),
      maxDownloads: collection.maxDownloads === null ? null : Number(collection.maxDownloads),
      downloads: Number(collection.downloads),
    };
    if (goneReason(state, now) !== null) continue;
    const token = grants.find((grant) => grant.collectionId === collection.id)?.token;
    if (
      token &&
      (await verifyShareGrant(token, collection.id, collection.passwordHash, ctx.config.sessionSecret, nowSeconds))
    )
      return true;
  }
  return false;
}
