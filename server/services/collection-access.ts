// Who may open a collection's link, and its "Download all" archive (ADR 0036): the rules of a
// file's link (ADR 0014) applied to the collection as a whole. One password opens the whole
// collection; every archive sent counts against its download limit, unless it is a range
// continuing one counted before for the same visitor (ADR 0056).
import type { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import { contentCrc32 } from '../archive/content-crc32';
import { distinctArchiveNames } from '../archive/archive-paths';
import { sendZip } from '../archive/send-zip';
import { planZip, type ZipByteRange, type ZipPlan } from '../archive/zip-plan';
import type { ServiceContext } from '../context';
import { AppError } from '../errors';
import { CollectionSchema, type StoredCollection } from '../db/entities/collection.entity';
import { FileSchema, type StoredFile } from '../db/entities/file.entity';
import { UserSchema } from '../db/entities/user.entity';
import { fileIdSchema } from '../schemas';
import { StorageUnavailableError } from '../storage/content-store';
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

export type CollectionAccess =
  | { kind: 'missing' }
  | { kind: 'gone'; reason: GoneReason; message: string }
  | { kind: 'locked'; collectionId: string }
  | OpenCollection;

interface OpenCollection {
  kind: 'open';
  /** What the visitor sees: the files whose own links are still live, in order. */
  collection: CollectionDto;
  /** The logged-in owner: never asked for the password, their downloads never count. */
  isOwner: boolean;
  /** The "Download all" archive, laid out in full (its length and ETag known before a byte is sent). */
  archive(): Promise<CollectionArchive>;
  /**
   * The request carries the claim of a download of this archive as it is now (ADR 0056): a range
   * of it continues that download and counts no new one, even once the link is used up.
   */
  resumable: boolean;
}

interface CollectionArchive {
  /** The file name it downloads as: the title's, cleaned as an upload's name is (ADR 0059). */
  name: string;
  size: number;
  /** Strong: changes with any file, path or order, so If-Range never joins two different archives. */
  etag: string;
  /** Sends the archive's bytes, all or one range, into `destination` and ends it. */
  send(range: ZipByteRange | null, destination: Writable): Promise<void>;
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
  const collection = await findSharedCollection(ctx, collectionId);
  if (!collection) return { kind: 'missing' };
  const now = ctx.clock.now();
  const gone = goneReason(collection, now);
  const goneNow = (reason: GoneReason) => ({ kind: 'gone' as const, reason, message: GONE_MESSAGES[reason] });
  const claimed = gone === 'expired' ? null : await claimedContent(ctx, proof.claim, collection.id);
  // A used-up link may still let the holder of a claim finish the download that used it up.
  if (gone && !(gone === 'used-up' && claimed)) return goneNow(gone);
  const isOwner = ctx.user?.id === collection.userId;
  const { passwordHash } = collection;
  if (passwordHash && !isOwner && !(await passesSharePassword(ctx, { id: collection.id, passwordHash }, proof)))
    return { kind: 'locked', collectionId: collection.id };
  // A file whose own link has expired or run out is on its way out (the sweep removes it).
  const entries = (await entriesOf(ctx, collection.id)).filter(({ file }) => goneReason(file, now) === null);
  let laidOut: Promise<CollectionArchive> | undefined;
  const archive = () => {
    laidOut ??= layOutArchive(ctx, collection.title, entries);
    return laidOut;
  };
  // The claim names the archive it was given for: one whose files changed since is another download.
  const resumable = claimed !== null && claimed === (await archive()).etag;
  if (gone && !resumable) return goneNow(gone);
  return {
    kind: 'open',
    collection: toCollectionDto(ctx, collection, entries),
    isOwner,
    archive,
    resumable,
  };
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

async function layOutArchive(
  ctx: ServiceContext,
  title: string,
  entries: Array<{ file: StoredFile; path: string }>,
): Promise<CollectionArchive> {
  const names = distinctArchiveNames(entries.map((entry) => entry.path));
  // One at a time: a collection of older files reads each once, not all of them at the same moment.
  const files: Array<StoredFile & { crc32: number }> = [];
  for (const { file } of entries) files.push(await withCrc32(ctx, file));
  const plan: ZipPlan = planZip(
    files.map((file, i) => ({ name: names[i], size: file.size, crc32: file.crc32, modifiedAt: file.createdAt })),
  );
  const identity = createHash('sha256');
  for (const [i, file] of files.entries()) identity.update(`${file.id}\0${names[i]}\0${file.size}\0${file.crc32}\n`);
  return {
    // A title kept by an older version may hold what titles no longer may (a bidi override).
    name: cleanFileName(`${title}.zip`),
    size: plan.size,
    etag: `"c-${identity.digest('base64url').slice(0, 27)}"`,
    send: (range, destination) =>
      sendZip(
        plan,
        range,
        async (index, start, end, into) =>
          (await ctx.store.open(files[index].storedName, { start, end })).pipeTo(into, { end: false }),
        destination,
      ),
  };
}

/**
 * The file with its CRC-32: recorded at upload; for a file recorded before that (or finished as a
 * resumable upload), computed once from its content and kept.
 */
async function withCrc32(ctx: ServiceContext, file: StoredFile): Promise<StoredFile & { crc32: number }> {
  if (file.crc32 !== null && file.crc32 !== undefined) return { ...file, crc32: Number(file.crc32) };
  const { crc32, size } = await contentCrc32((await ctx.store.open(file.storedName)).stream);
  if (size !== Number(file.size))
    throw new StorageUnavailableError(
      `The content of file ${file.id} holds ${size} bytes where ${file.size} were recorded`,
    );
  await ctx.em.nativeUpdate(FileSchema, { id: file.id }, { crc32 });
  return { ...file, crc32 };
}

/**
 * Counts the "Download all" that an answer sending the archive (200, or 206 when `partial`) is,
 * atomically as a file's download is counted, unless it is the owner's or a range continuing a
 * download claimed before; a counted one gives its claim (ADR 0056).
 */
export async function countCollectionDownload(
  ctx: ServiceContext,
  access: Pick<OpenCollection, 'collection' | 'isOwner' | 'resumable'>,
  archive: Pick<CollectionArchive, 'etag'>,
  partial: boolean,
): Promise<DownloadCount> {
  if (access.isOwner || (partial && access.resumable)) return { kind: 'continued' };
  const gone = await countDownload(ctx, 'collections', access.collection);
  if (gone) return { kind: 'gone', reason: gone };
  return { kind: 'counted', claim: await downloadClaim(ctx, access.collection.id, archive.etag) };
}
