// Who may open a collection's link, and its "Download all" archive (ADR 0036): the rules of a
// file's link (ADR 0014) applied to the collection as a whole. One password opens the whole
// collection, its files' own links included (ADR 0067: collection-grants.ts); every archive sent
// counts against its download limit, unless it is a range continuing one counted before for the
// same visitor (ADR 0056). The archive is laid out once per change of the collection (ADR 0055).
import type { ServiceContext } from '../context';
import { AppError } from '../utilities/errors';
import { CollectionSchema, type StoredCollection } from '../db/entities/collection.entity';
import { UserSchema } from '../db/entities/user.entity';
import { fileIdSchema } from '../schemas';
import { collectionArchive, type CollectionArchive } from './collection-archive';
import { entriesOf, toCollectionDto, type CollectionDto } from './collections';
import { cleanFileName } from './files';
import {
  claimedContent,
  countDownload,
  downloadClaim,
  grantForPassword,
  passesSharePassword,
  type DownloadCount,
  type ShareProof,
} from './share-access';
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
  /**
   * Whether the visitor may open its files' own links even where they ask a password: the owner,
   * or a visitor let in by the collection's password, whose grant opens its files (ADR 0067).
   */
  filesUnlocked: boolean;
}

type CollectionArchiveAccess = Refusal | OpenArchive;

interface OpenArchive {
  kind: 'open';
  /** The collection's own settings (its files are the archive's to read). */
  collection: Pick<CollectionDto, 'id' | 'title' | 'expiresAt' | 'maxDownloads' | 'hasPassword'>;
  /** The logged-in owner: never asked for the password, their downloads never count. */
  isOwner: boolean;
  /** The "Download all" archive, laid out in full (its length and ETag known before a byte is sent). */
  archive(): Promise<NamedArchive>;
  /**
   * The request carries the claim of a download of this archive as it is now (ADR 0056): a range
   * of it continues that download and counts no new one, even once the link is used up.
   */
  resumable: boolean;
}

interface NamedArchive extends CollectionArchive {
  /** The file name it downloads as: the title's, cleaned as an upload's name is (ADR 0059). */
  name: string;
}

type Admitted = {
  kind: 'admitted';
  collection: StoredCollection;
  isOwner: boolean;
  /** Why the link is gone, when it is but the visitor holds a claim that may let them finish a download. */
  gone: GoneReason | null;
  /** The archive ETag the visitor's download claim names, if any (ADR 0056). */
  claimed: string | null;
};

const goneNow = (reason: GoneReason): Refusal => ({ kind: 'gone', reason, message: GONE_MESSAGES[reason] });

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
  if (access.gone) return goneNow(access.gone);
  // A file whose own link has expired or run out is on its way out (the sweep removes it).
  const now = ctx.clock.now();
  const entries = (await entriesOf(ctx, collection.id)).filter(({ file }) => goneReason(file, now) === null);
  return {
    kind: 'open',
    collection: toCollectionDto(ctx, collection, entries),
    isOwner,
    filesUnlocked: isOwner || collection.passwordHash !== null,
  };
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
  const { collection, isOwner, gone, claimed } = access;
  let laidOut: Promise<NamedArchive> | undefined;
  const archive = () => {
    laidOut ??= collectionArchive(ctx, collection.id).then((plan) => ({
      ...plan,
      // A title kept by an older version may hold what titles no longer may (a bidi override).
      name: cleanFileName(`${collection.title}.zip`),
    }));
    return laidOut;
  };
  // The claim names the archive it was given for: one whose files changed since is another download.
  const resumable = claimed !== null && claimed === (await archive()).etag;
  if (gone && !resumable) return goneNow(gone);
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
    archive,
    resumable,
  };
}

/** The collection, when its link is live and the visitor may open it (the owner always may). */
async function admitVisitor(ctx: ServiceContext, collectionId: string, proof: ShareProof): Promise<Refusal | Admitted> {
  const collection = await findSharedCollection(ctx, collectionId);
  if (!collection) return { kind: 'missing' };
  const gone = goneReason(collection, ctx.clock.now());
  // A used-up link may still let the holder of a claim finish the download that used it up.
  const claimed = gone === 'expired' ? null : await claimedContent(ctx, proof.claim, collection.id);
  if (gone && !(gone === 'used-up' && claimed)) return goneNow(gone);
  const isOwner = ctx.user?.id === collection.userId;
  const { passwordHash } = collection;
  if (passwordHash && !isOwner && !(await passesSharePassword(ctx, { id: collection.id, passwordHash }, proof)))
    return { kind: 'locked', collectionId: collection.id };
  return { kind: 'admitted', collection, isOwner, gone, claimed };
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
 * (sent to the whole site: it opens the page, its archive and its files, ADR 0067). Throws
 * UNAUTHORIZED for a wrong one, TOO_MANY_REQUESTS (the file password's throttle, counted per
 * collection), GONE or NOT_FOUND.
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

/**
 * Counts the "Download all" that an answer sending the archive (200, or 206 when `partial`) is,
 * atomically as a file's download is counted, unless it is the owner's or a range continuing a
 * download claimed before; a counted one gives its claim (ADR 0056).
 */
export async function countCollectionDownload(
  ctx: ServiceContext,
  access: Pick<OpenArchive, 'collection' | 'isOwner' | 'resumable'>,
  archive: Pick<CollectionArchive, 'etag'>,
  partial: boolean,
): Promise<DownloadCount> {
  if (access.isOwner || (partial && access.resumable)) return { kind: 'continued' };
  const gone = await countDownload(ctx, 'collections', access.collection);
  if (gone) return { kind: 'gone', reason: gone };
  return { kind: 'counted', claim: await downloadClaim(ctx, access.collection.id, archive.etag) };
}
