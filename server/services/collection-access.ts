// Who may open a collection's link, and its "Download all" archive (ADR 0036): the rules of a
// file's link (ADR 0014) applied to the collection as a whole. One password opens the whole
// collection; an archive started from its first byte counts once against its download limit.
import type { ServiceContext } from '../context';
import { AppError } from '../errors';
import { CollectionSchema, type StoredCollection } from '../db/entities/collection.entity';
import { UserSchema } from '../db/entities/user.entity';
import { fileIdSchema } from '../schemas';
import { collectionArchive, type CollectionArchive } from './collection-archive';
import { entriesOf, toCollectionDto, type CollectionDto } from './collections';
import { countDownload, grantForPassword, passesSharePassword, type ShareProof } from './share-access';
import { GONE_MESSAGES, goneReason, type GoneReason } from './share-settings';

export const COLLECTION_PASSWORD_REQUIRED = 'This collection is password-protected.';

type Refusal =
  | { kind: 'missing' }
  | { kind: 'gone'; reason: GoneReason; message: string }
  | { kind: 'locked'; collectionId: string };

export type CollectionAccess = Refusal | OpenCollection;

interface OpenCollection {
  kind: 'open';
  /** What the visitor sees: the files whose own links are still live, in order. */
  collection: CollectionDto;
  /** The logged-in owner: never asked for the password, their downloads never count. */
  isOwner: boolean;
}

type CollectionArchiveAccess = Refusal | OpenArchive;

interface OpenArchive {
  kind: 'open';
  /** The collection's own settings (its files are the archive's to read). */
  collection: Pick<CollectionDto, 'id' | 'title' | 'expiresAt' | 'maxDownloads' | 'hasPassword'>;
  /** The logged-in owner: never asked for the password, their downloads never count. */
  isOwner: boolean;
  /** The "Download all" archive, laid out in full (its length and ETag known before a byte is sent). */
  archive(): Promise<CollectionArchive>;
}

/**
 * What a visitor gets at a collection's link. A wrong password (in `proof.password`) is a 401
 * AppError, and too many of them a 429, counted per collection and address.
 */
export async function openCollectionShare(
  ctx: ServiceContext,
  collectionId: string,
  proof: ShareProof = {},
): Promise<CollectionAccess> {
  const access = await admitVisitor(ctx, collectionId, proof);
  if (access.kind !== 'admitted') return access;
  const { collection, isOwner } = access;
  // A file whose own link has expired or run out is on its way out (the sweep removes it).
  const now = ctx.clock.now();
  const entries = (await entriesOf(ctx, collection.id)).filter(({ file }) => goneReason(file, now) === null);
  return { kind: 'open', collection: toCollectionDto(ctx, collection, entries), isOwner };
}

/**
 * What a visitor gets at a collection's "Download all" link, as openCollectionShare decides;
 * its files are read only when the archive is laid out, and then once per change (ADR 0055).
 */
export async function openCollectionArchive(
  ctx: ServiceContext,
  collectionId: string,
  proof: ShareProof = {},
): Promise<CollectionArchiveAccess> {
  const access = await admitVisitor(ctx, collectionId, proof);
  if (access.kind !== 'admitted') return access;
  const { collection, isOwner } = access;
  return {
    kind: 'open',
    collection: {
      id: collection.id,
      title: collection.title,
      expiresAt: collection.expiresAt === null ? null : new Date(collection.expiresAt).toISOString(),
      maxDownloads: collection.maxDownloads,
      hasPassword: collection.passwordHash !== null,
    },
    isOwner,
    archive: () => collectionArchive(ctx, collection.id),
  };
}

/** The collection, when its link is live and the visitor may open it (the owner always may). */
async function admitVisitor(
  ctx: ServiceContext,
  collectionId: string,
  proof: ShareProof,
): Promise<Refusal | { kind: 'admitted'; collection: StoredCollection; isOwner: boolean }> {
  const collection = await findSharedCollection(ctx, collectionId);
  if (!collection) return { kind: 'missing' };
  const gone = goneReason(collection, ctx.clock.now());
  if (gone) return { kind: 'gone', reason: gone, message: GONE_MESSAGES[gone] };
  const isOwner = ctx.user?.id === collection.userId;
  const { passwordHash } = collection;
  if (passwordHash && !isOwner && !(await passesSharePassword(ctx, { id: collection.id, passwordHash }, proof)))
    return { kind: 'locked', collectionId: collection.id };
  return { kind: 'admitted', collection, isOwner };
}

/** The collection behind a link: null when there is none or its owner is disabled (their links are off, ADR 0018). */
async function findSharedCollection(ctx: ServiceContext, collectionId: string): Promise<StoredCollection | null> {
  if (!fileIdSchema.safeParse(collectionId).success) return null;
  const collection = await ctx.em.findOne(CollectionSchema, { id: collectionId }, { disableIdentityMap: true });
  if (!collection) return null;
  const owner = await ctx.em.findOne(
    UserSchema,
    { id: collection.userId, disabledAt: null },
    { fields: ['id'], disableIdentityMap: true },
  );
  return owner ? collection : null;
}

/**
 * Checks a collection's password typed on its page; resolves with the proof to keep in a cookie
 * (scoped to `/c/<id>`, so it opens the page and its archive). Throws UNAUTHORIZED for a wrong
 * one, TOO_MANY_REQUESTS (the file password's throttle, counted per collection), GONE or NOT_FOUND.
 */
export async function unlockCollection(
  ctx: ServiceContext,
  collectionId: string,
  password: unknown,
): Promise<{ grant: string; maxAgeSeconds: number }> {
  const collection = await findSharedCollection(ctx, collectionId);
  if (!collection) throw new AppError('NOT_FOUND', 'Collection not found');
  const now = ctx.clock.now();
  const gone = goneReason(collection, now);
  if (gone) throw new AppError('GONE', GONE_MESSAGES[gone]);
  if (!collection.passwordHash) throw new AppError('BAD_REQUEST', 'This collection has no password');
  return grantForPassword(ctx, { id: collection.id, passwordHash: collection.passwordHash }, password);
}

/** Counts one "Download all" of a collection, atomically, as a file's download is counted. */
export function claimCollectionDownload(
  ctx: ServiceContext,
  collection: Pick<CollectionDto, 'id' | 'expiresAt'>,
): Promise<GoneReason | null> {
  return countDownload(ctx, 'collections', collection);
}
