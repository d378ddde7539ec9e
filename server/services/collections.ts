// Every rule about collections: several of one user's files behind one link, `/c/<id>`, each
// with the path it has there (and in the archive), and the share controls a file has.
import type { z } from 'zod';
import { normaliseArchivePath } from '../archive/archive-paths';
import { countedTitle, folderTitle } from '../collection-titles';
import type { EntityManager } from '../db/orm';
import type { ServiceContext } from '../context';
import { CollectionFileSchema, type CollectionFile } from '../db/entities/collection-file.entity';
import { CollectionSchema, type StoredCollection } from '../db/entities/collection.entity';
import { FileSchema, type StoredFile } from '../db/entities/file.entity';
import { AppError } from '../utilities/errors';
import {
  addToCollectionSchema,
  collectionChangeSchema,
  type collectionEntrySchema,
  fileIdSchema,
  firstIssue,
  MAX_COLLECTION_FILES,
  newCollectionSchema,
} from '../schemas';
import { collectionFilesChanged } from '../db/collection-versions';
import { deleteFile, newFileId, toFileDto, type FileDto } from './files';
import { requireUser } from './guards';
import { changedShareColumns, GONE_MESSAGES, goneReason, newShareColumns } from './share-settings';
import { recordActivity } from './activity';

interface CollectionEntryDto {
  /** Where the file sits in the collection and in its archive, e.g. `photos/2026/beach.jpg`. */
  path: string;
  file: FileDto;
}

/** The collection object of the API (docs/api.md). */
export interface CollectionDto {
  id: string;
  userId: string;
  title: string;
  /** The public link: `{BASE_URL}/c/<id>`. */
  url: string;
  createdAt: string;
  expiresAt: string | null;
  maxDownloads: number | null;
  /** "Download all" archives started so far by others than the owner. */
  downloads: number;
  hasPassword: boolean;
  fileCount: number;
  /** The sum of its files' sizes. */
  totalSize: number;
  files: CollectionEntryDto[];
}

type EntryInput = z.infer<typeof collectionEntrySchema>;

function parse<T extends z.ZodTypeAny>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  return parsed.data;
}

/** The share settings among the keys of a request body (the rest are the collection's own). */
function shareSettingsOf(input: Record<string, unknown>): Record<string, unknown> {
  const { title: _title, files: _files, ...settings } = input;
  return settings;
}

function collectionUrl(ctx: Pick<ServiceContext, 'linkBase'>, collectionId: string): string {
  return `${ctx.linkBase}/c/${collectionId}`;
}

/**
 * The caller's files named by `entries`, in that order, each with its normalised path; a file
 * that is not the caller's (or not there) is refused as unknown, whoever's it is.
 */
async function ownEntries(ctx: ServiceContext, ownerId: string, entries: EntryInput[]) {
  const ids = [...new Set(entries.map((entry) => entry.id))];
  if (ids.length !== entries.length) throw new AppError('BAD_REQUEST', 'A file can be in a collection only once');
  const files = await filesById(ctx, ids, ownerId);
  return entries.map((entry) => {
    const file = files.get(entry.id);
    if (!file) throw new AppError('BAD_REQUEST', `You have no file with the id ${entry.id}`);
    return { file, path: normalisedPath(entry.path ?? file.originalName) };
  });
}

/** The files with these ids (of `ownerId` only, when given), by id. */
async function filesById(
  ctx: Pick<ServiceContext, 'em'>,
  ids: string[],
  ownerId?: string,
): Promise<Map<string, StoredFile>> {
  const files = new Map<string, StoredFile>();
  // In slices: a query's parameters are limited on both databases.
  for (let start = 0; start < ids.length; start += 500) {
    const slice = ids.slice(start, start + 500);
    const where = ownerId === undefined ? { id: { $in: slice } } : { id: { $in: slice }, userId: ownerId };
    for (const row of await ctx.em.find(FileSchema, where, { disableIdentityMap: true })) files.set(row.id, row);
  }
  return files;
}

/** A path as a collection keeps it; a 400 naming it when it could leave the folder it is extracted into. */
function normalisedPath(path: string): string {
  const normalised = normaliseArchivePath(path);
  if (!normalised.ok) throw new AppError('BAD_REQUEST', `${path}: ${normalised.message}`);
  return normalised.path;
}

function rowsOf(collectionId: string, entries: Array<{ file: StoredFile; path: string }>): CollectionFile[] {
  return entries.map(({ file, path }, position) => ({ collectionId, fileId: file.id, position, path }));
}

/**
 * Where an upload's file will join one of the caller's collections: the collection's id and the
 * normalised path (the file's name when none is given). A 400 names what is wrong.
 */
export async function collectionTarget(
  ctx: ServiceContext,
  collectionId: string,
  path: string,
): Promise<{ collectionId: string; path: string }> {
  await requireOwnCollection(ctx, collectionId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'NOT_FOUND')
      throw new AppError('BAD_REQUEST', 'You have no collection with that id');
    throw error;
  });
  return { collectionId, path: normalisedPath(path) };
}

/**
 * Puts a file just made at the end of a collection, in the transaction that records the file;
 * nothing when the collection has gone meanwhile (or was never the owner's).
 */
export async function joinCollection(
  em: EntityManager,
  ownerId: string,
  target: { collectionId: string; path: string },
  fileId: string,
): Promise<void> {
  const collection = await em.findOne(
    CollectionSchema,
    { id: target.collectionId, userId: ownerId },
    { fields: ['id'] },
  );
  if (!collection) return;
  const last = await em.findOne(
    CollectionFileSchema,
    { collectionId: collection.id },
    { orderBy: { position: 'desc' }, fields: ['position'] },
  );
  await em.insert(CollectionFileSchema, {
    collectionId: collection.id,
    fileId,
    position: (last?.position ?? -1) + 1,
    path: target.path,
  });
  await collectionFilesChanged(em, collection.id);
}

/** Makes a collection of the caller's files (named by id, each with an optional path). */
export async function createCollection(ctx: ServiceContext, input: unknown): Promise<CollectionDto> {
  const owner = requireUser(ctx);
  const body = parse(newCollectionSchema, input);
  const entries = await ownEntries(ctx, owner.id, body.files);
  const { expiresAfterMs, ...share } = await newShareColumns(ctx, shareSettingsOf(input as Record<string, unknown>));
  const now = ctx.clock.now();
  const collection: StoredCollection = {
    id: newFileId(),
    userId: owner.id,
    // Untitled: the folder its files share, else their count (ADR 0039).
    title: body.title ?? folderTitle(entries.map((entry) => entry.path)) ?? countedTitle(entries.length),
    createdAt: new Date(now),
    downloads: 0,
    filesVersion: 0,
    ...share,
    expiresAt: expiresAfterMs === null ? share.expiresAt : new Date(now + expiresAfterMs),
  };
  await ctx.em.transactional(async (em) => {
    await em.insert(CollectionSchema, collection);
    await em.insertMany(CollectionFileSchema, rowsOf(collection.id, entries));
  });
  ctx.log.info({ collectionId: collection.id, files: entries.length }, 'collection created');
  return toCollectionDto(ctx, collection, entries);
}

/** The caller's collections, newest first (without their files: `fileCount` and `totalSize` say enough). */
export async function listCollections(ctx: ServiceContext): Promise<Array<Omit<CollectionDto, 'files'>>> {
  const owner = requireUser(ctx);
  const collections = await ctx.em.find(
    CollectionSchema,
    { userId: owner.id },
    { orderBy: { createdAt: 'desc', id: 'desc' }, disableIdentityMap: true },
  );
  const listed = [];
  for (const collection of collections) {
    const { files: _files, ...rest } = toCollectionDto(ctx, collection, await entriesOf(ctx, collection.id));
    listed.push(rest);
  }
  return listed;
}

/** The files of a collection in order, each with its path. */
export async function entriesOf(
  ctx: Pick<ServiceContext, 'em'>,
  collectionId: string,
): Promise<Array<{ file: StoredFile; path: string }>> {
  const places = await ctx.em.find(
    CollectionFileSchema,
    { collectionId },
    // Two files that join at the same moment (resumable uploads finishing together on two
    // instances) can take the same place: the file id orders them, the same way everywhere, so
    // the page and the archive (and its ETag) never change between requests.
    { orderBy: { position: 'asc', fileId: 'asc' }, disableIdentityMap: true },
  );
  const files = await filesById(
    ctx,
    places.map((place) => place.fileId),
  );
  return places.flatMap((place) => {
    const file = files.get(place.fileId);
    return file ? [{ file, path: place.path }] : [];
  });
}

export function toCollectionDto(
  ctx: Pick<ServiceContext, 'config' | 'linkBase'>,
  collection: StoredCollection,
  entries: Array<{ file: StoredFile; path: string }>,
): CollectionDto {
  return {
    id: collection.id,
    userId: collection.userId,
    title: collection.title,
    url: collectionUrl(ctx, collection.id),
    createdAt: new Date(collection.createdAt).toISOString(),
    expiresAt: collection.expiresAt === null ? null : new Date(collection.expiresAt).toISOString(),
    maxDownloads: collection.maxDownloads,
    downloads: collection.downloads,
    hasPassword: collection.passwordHash !== null,
    fileCount: entries.length,
    totalSize: entries.reduce((sum, entry) => sum + Number(entry.file.size), 0),
    files: entries.map(({ file, path }) => ({ path, file: toFileDto(file) })),
  };
}

/** One of the caller's collections; another user's is as unknown as a missing one. */
async function requireOwnCollection(ctx: ServiceContext, collectionId: string): Promise<StoredCollection> {
  const owner = requireUser(ctx);
  const collection = fileIdSchema.safeParse(collectionId).success
    ? await ctx.em.findOne(CollectionSchema, { id: collectionId }, { disableIdentityMap: true })
    : null;
  if (!collection || collection.userId !== owner.id) throw new AppError('NOT_FOUND', 'Collection not found');
  return collection;
}

export async function getOwnCollection(ctx: ServiceContext, collectionId: string): Promise<CollectionDto> {
  const collection = await requireOwnCollection(ctx, collectionId);
  return toCollectionDto(ctx, collection, await entriesOf(ctx, collection.id));
}

/**
 * Changes a collection: its title, its share settings (only the keys sent; null clears), and,
 * when `files` is sent, which of the caller's files it holds, in that order, with their paths.
 */
export async function updateCollection(
  ctx: ServiceContext,
  collectionId: string,
  input: unknown,
): Promise<CollectionDto> {
  const owner = requireUser(ctx);
  const collection = await requireOwnCollection(ctx, collectionId);
  const body = parse(collectionChangeSchema, input);
  const gone = goneReason(collection, ctx.clock.now());
  const settings = shareSettingsOf(input as Record<string, unknown>);
  if (gone && Object.keys(settings).length > 0) throw new AppError('GONE', GONE_MESSAGES[gone]);
  const changes = {
    ...(await changedShareColumns(ctx, collection, settings)),
    ...(body.title ? { title: body.title } : {}),
  };
  const entries = body.files ? await ownEntries(ctx, owner.id, body.files) : null;
  await ctx.em.transactional(async (em) => {
    if (Object.keys(changes).length > 0) await em.nativeUpdate(CollectionSchema, { id: collection.id }, changes);
    if (entries) {
      await em.nativeDelete(CollectionFileSchema, { collectionId: collection.id });
      if (entries.length > 0) await em.insertMany(CollectionFileSchema, rowsOf(collection.id, entries));
      await collectionFilesChanged(em, collection.id);
    }
  });
  return getOwnCollection(ctx, collection.id);
}

/** Adds files of the caller's at the end of a collection. */
export async function addToCollection(
  ctx: ServiceContext,
  collectionId: string,
  input: unknown,
): Promise<CollectionDto> {
  const owner = requireUser(ctx);
  const collection = await requireOwnCollection(ctx, collectionId);
  const { files } = parse(addToCollectionSchema, input);
  const current = await entriesOf(ctx, collection.id);
  if (current.length + files.length > MAX_COLLECTION_FILES)
    throw new AppError('BAD_REQUEST', `A collection holds at most ${MAX_COLLECTION_FILES} files`);
  const already = new Set(current.map((entry) => entry.file.id));
  const repeated = files.find((entry) => already.has(entry.id));
  if (repeated) throw new AppError('CONFLICT', `The file ${repeated.id} is in this collection already`);
  const added = await ownEntries(ctx, owner.id, files);
  await ctx.em.transactional(async (em) => {
    await em.insertMany(
      CollectionFileSchema,
      added.map(({ file, path }, i) => ({
        collectionId: collection.id,
        fileId: file.id,
        position: current.length + i,
        path,
      })),
    );
    await collectionFilesChanged(em, collection.id);
  });
  return getOwnCollection(ctx, collection.id);
}

/** Takes one file out of a collection (the file itself stays). */
export async function removeFromCollection(
  ctx: ServiceContext,
  collectionId: string,
  fileId: string,
): Promise<CollectionDto> {
  const collection = await requireOwnCollection(ctx, collectionId);
  const removed = await ctx.em.transactional(async (em) => {
    const count = await em.nativeDelete(CollectionFileSchema, { collectionId: collection.id, fileId });
    if (count > 0) await collectionFilesChanged(em, collection.id);
    return count;
  });
  if (removed === 0) throw new AppError('NOT_FOUND', 'That file is not in this collection');
  return getOwnCollection(ctx, collection.id);
}

/**
 * Deletes a collection; with `deleteFiles`, its files too (each as deleting it alone would).
 * Without, the files stay, with their own links.
 */
export async function deleteCollection(
  ctx: ServiceContext,
  collectionId: string,
  options: { deleteFiles: boolean },
): Promise<CollectionDto> {
  const collection = await requireOwnCollection(ctx, collectionId);
  const entries = await entriesOf(ctx, collection.id);
  const removed = await ctx.em.nativeDelete(CollectionSchema, { id: collection.id, userId: collection.userId });
  if (removed === 0) throw new AppError('NOT_FOUND', 'Collection not found');
  if (options.deleteFiles) {
    for (const { file } of entries) {
      try {
        await deleteFile(ctx, file.id);
      } catch (error) {
        // Deleted meanwhile by another request: that is what was asked.
        if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      }
    }
  }
  ctx.log.info({ collectionId: collection.id, filesDeleted: options.deleteFiles }, 'collection deleted');
  await recordActivity(ctx, {
    action: 'collection.deleted',
    target: { kind: 'collection', id: collection.id, name: collection.title },
    detail: options.deleteFiles ? 'with its files' : null,
  });
  return toCollectionDto(ctx, collection, entries);
}
