// Thumbnails of shared images (ADR 0041): a small WebP beside the file in the content store,
// made by libvips (sharp) after an upload, never while it is being answered: one at a time in
// this process, so that a burst of uploads takes neither the threads every other request needs
// nor more memory than one image (ADR 0061). A file stored before thumbnails existed (or whose
// thumbnail was lost) gets one on the first request for it.
//
// The store is wrapped once, where it is made (server/deps.ts): content written under a stored
// name (an upload, a finished resumable upload) asks for its thumbnail, and content deleted
// under a stored name (a delete, an expired link, a failed upload, the sweep) takes its
// thumbnail with it. The thumbnail's key is not a stored name (isStoredName), so the
// storage sweep, which removes content without a record, never mistakes one for an orphan.
import { Readable } from 'node:stream';
import type { EntityManager } from '../db/orm';
import type { Logger } from 'pino';
import type { Sharp, SharpOptions } from 'sharp';
import {
  ContentNotFoundError,
  type ByteRange,
  type ContentStore,
  type PartialContentStore,
  type PartialProgress,
  type WriteOptions,
} from '../storage/content-store';
import { FileSchema } from '../db/entities/file.entity';
import { THUMBNAIL_IMAGE_TYPES } from '../utilities/thumbnail-types';
import { isStoredName } from './files';
import { thumbnailMemory } from './thumbnail-memory';

/** The thumbnail fits in a square of this many pixels. */
const THUMBNAIL_PIXELS = 320;
/** Images with more pixels than this (100 MP) are refused, unread: a small file may claim a huge canvas. */
const MAX_INPUT_PIXELS = 100_000_000;
/**
 * Images whose thumbnail would hold more than this in libvips are refused, unread: an idle
 * server of 100–140 MB stays under 250 MB while it makes one (ADR 0061).
 */
const MAX_MAKING_BYTES = 96 * 1024 * 1024;
/** Larger files get no thumbnail: libvips reads a stream whole into memory first. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** A thumbnail is some kilobytes; this only bounds the write. */
const MAX_THUMBNAIL_BYTES = 4 * 1024 * 1024;
/** Thumbnails being made at once in this process: each may hold up to MAX_MAKING_BYTES. */
const MAKING_AT_ONCE = 1;
/** An image that takes libvips longer than this gets no thumbnail. */
const MAKING_TIMEOUT_SECONDS = 30;
/** Stored names whose image could not be read, remembered so that a request does not try again. */
const FAILED_REMEMBERED = 10_000;

const IMAGE_EXTENSIONS = new Set([
  'jpg',
  'jpeg',
  'jpe',
  'jfif',
  'png',
  'webp',
  'avif',
  'gif',
  'tif',
  'tiff',
  'heic',
  'heif',
  'svg',
]);

/** Where a file's thumbnail is kept: its stored name's id with `-thumb.webp`, never a stored name itself. */
function thumbnailKey(storedName: string): string {
  const dot = storedName.indexOf('.');
  return `${dot === -1 ? storedName : storedName.slice(0, dot)}-thumb.webp`;
}

/** A thumbnail's key: a file id (the stem of every stored name) and `-thumb.webp`. */
const THUMBNAIL_KEY = /^([A-Za-z0-9_-]{22})-thumb\.webp$/;

/**
 * Removes the thumbnails among `keys` (a listing of the store) whose file has no record: left
 * by a delete that stopped between its record and its content. Returns how many went.
 */
export async function removeOrphanThumbnails(
  deps: { em: EntityManager; store: ContentStore },
  keys: readonly string[],
): Promise<number> {
  const fileIds = keys.flatMap((key) => THUMBNAIL_KEY.exec(key)?.[1] ?? []);
  let removed = 0;
  for (let i = 0; i < fileIds.length; i += 500) {
    const batch = fileIds.slice(i, i + 500);
    const records = await deps.em.find(FileSchema, { id: { $in: batch } }, { fields: ['id'] });
    const known = new Set(records.map((file) => file.id));
    for (const id of batch.filter((fileId) => !known.has(fileId))) {
      const key = thumbnailKey(id);
      // Gone already when its file's content was swept just before.
      if (!(await deps.store.stat(key))) continue;
      await deps.store.delete(key);
      removed++;
    }
  }
  return removed;
}

/**
 * Whether a file is one a thumbnail is made for (an image libvips reads, SVG included, not too
 * large): the pages that list files show `/f/<id>/thumbnail` for it, a type icon for the rest.
 */
export function thumbnailExpected(file: ThumbnailSource): boolean {
  return (
    (THUMBNAIL_IMAGE_TYPES.has(file.mimeType) || hasImageExtension(file.storedName)) && file.size <= MAX_INPUT_BYTES
  );
}

function hasImageExtension(storedName: string): boolean {
  const dot = storedName.lastIndexOf('.');
  return dot !== -1 && IMAGE_EXTENSIONS.has(storedName.slice(dot + 1).toLowerCase());
}

/** What a thumbnail is asked for: the file's stored name, type and size (its record). */
export interface ThumbnailSource {
  storedName: string;
  mimeType: string;
  size: number;
}

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;
let sharpLoaded: Promise<SharpFactory> | null = null;

/** libvips is loaded on the first thumbnail: a server that never makes one does not carry it. */
function loadSharp(): Promise<SharpFactory> {
  sharpLoaded ??= import('sharp').then((module) => {
    const sharp = module.default;
    // One thread per image, and no cache of decoded images: memory stays that of the images at hand.
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp as unknown as SharpFactory;
  });
  return sharpLoaded;
}

/** The thumbnail of `image`: EXIF orientation applied, fitted in the square, as WebP. Rejects for a broken or oversized image. */
async function renderThumbnail(image: Buffer): Promise<Buffer> {
  const sharp = await loadSharp();
  const options: SharpOptions = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' };
  // The header alone says what decoding would hold (an interlaced PNG is decoded whole).
  const needs = thumbnailMemory(await sharp(image, options).metadata(), THUMBNAIL_PIXELS);
  if (needs > MAX_MAKING_BYTES) throw new Error(`making it would hold ${Math.ceil(needs / 2 ** 20)} MiB`);
  return sharp(image, options)
    .rotate()
    .resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 75 })
    .timeout({ seconds: MAKING_TIMEOUT_SECONDS })
    .toBuffer();
}

async function readWhole(stream: Readable, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      stream.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Makes and reads the thumbnails of one content store. */
export class Thumbnails {
  /** Stored names waiting or being made, with what they become (null: no thumbnail). */
  private readonly making = new Map<string, Promise<Buffer | null>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private readonly failed = new Set<string>();

  constructor(
    private readonly store: ContentStore,
    private readonly log: Logger,
  ) {}

  /** Asks for the thumbnail of content just stored under `storedName`, when its name says it is an image. */
  schedule(storedName: string, size: number): void {
    if (!isStoredName(storedName) || !hasImageExtension(storedName) || size > MAX_INPUT_BYTES) return;
    void this.make(storedName, size);
  }

  /**
   * The thumbnail of a file, or null when it has none: not an image, or an image that could not
   * be read. One being made is waited for; a file stored before thumbnails existed gets one now.
   */
  async read(file: ThumbnailSource): Promise<Buffer | null> {
    // Being made here: waited for, never read from the store while it is being written there.
    const making = this.making.get(file.storedName);
    if (making) return making;
    try {
      const opened = await this.store.open(thumbnailKey(file.storedName));
      return await readWhole(opened.stream, MAX_THUMBNAIL_BYTES);
    } catch (error) {
      if (!(error instanceof ContentNotFoundError)) throw error;
    }
    const { storedName } = file;
    const image = THUMBNAIL_IMAGE_TYPES.has(file.mimeType) || hasImageExtension(storedName);
    if (!image || file.size > MAX_INPUT_BYTES || this.failed.has(storedName)) return null;
    // Being made (just uploaded): the request waits for it, as a page of new files asks at once.
    return this.make(storedName, file.size);
  }

  /** Forgets what was known of `storedName` (its content is gone). */
  forget(storedName: string): void {
    this.failed.delete(storedName);
  }

  private make(storedName: string, size: number): Promise<Buffer | null> {
    const existing = this.making.get(storedName);
    if (existing) return existing;
    const made = this.inTurn(() => this.makeNow(storedName, size)).finally(() => this.making.delete(storedName));
    this.making.set(storedName, made);
    return made;
  }

  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= MAKING_AT_ONCE) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The turn passes straight on; `running` counts it still.
      if (next) next();
      else this.running--;
    }
  }

  private async makeNow(storedName: string, size: number): Promise<Buffer | null> {
    const key = thumbnailKey(storedName);
    let image: Buffer | null;
    try {
      image = await readWhole((await this.store.open(storedName)).stream, MAX_INPUT_BYTES);
    } catch (error) {
      // Deleted meanwhile: nothing to make. A store that fails is asked again at the next request.
      if (!(error instanceof ContentNotFoundError)) this.log.warn({ err: error, storedName }, 'thumbnail not made');
      return null;
    }
    if (!image) return this.refused(storedName, 'too large');
    // Not the bytes of its record (a store that showed the object before all of it): not the
    // image's fault, so nothing is remembered and the next request for the thumbnail tries again.
    if (image.length !== size) {
      this.log.warn({ storedName, read: image.length, size }, 'thumbnail not made: the content read is not whole');
      return null;
    }
    let thumbnail: Buffer;
    try {
      thumbnail = await renderThumbnail(image);
    } catch (error) {
      return this.refused(storedName, (error as Error).message);
    }
    try {
      await this.store.write(key, Readable.from([thumbnail]), { maxBytes: MAX_THUMBNAIL_BYTES });
      // A delete may have come while it was made: then the thumbnail goes too.
      if (!(await this.store.stat(storedName))) {
        await this.store.delete(key);
        return null;
      }
    } catch (error) {
      this.log.warn({ err: error, storedName }, 'thumbnail not stored');
      return null;
    }
    return thumbnail;
  }

  private refused(storedName: string, reason: string): null {
    // An upload the user may well not know to be broken, not a fault of the service.
    this.log.warn({ storedName, reason }, 'no thumbnail: the image could not be read');
    if (this.failed.size >= FAILED_REMEMBERED) this.failed.delete(this.failed.values().next().value as string);
    this.failed.add(storedName);
    return null;
  }
}

const thumbnailsOfStore = new WeakMap<ContentStore, Thumbnails>();

/** The thumbnails kept in `store` (the one a request's context has). */
export function thumbnailsOf(store: ContentStore, log: Logger): Thumbnails {
  let thumbnails = thumbnailsOfStore.get(store);
  if (!thumbnails) {
    thumbnails = new Thumbnails(store, log);
    thumbnailsOfStore.set(store, thumbnails);
  }
  return thumbnails;
}

/**
 * The store with thumbnails: what is written under a stored name gets its thumbnail made once
 * written, and what is deleted under one loses its thumbnail too. Everything else passes through.
 */
export function withThumbnails(store: ContentStore, log: Logger): ContentStore {
  const thumbnails = new Thumbnails(store, log);
  const deleteThumbnail = async (key: string) => {
    if (!isStoredName(key)) return;
    thumbnails.forget(key);
    try {
      await store.delete(thumbnailKey(key));
    } catch (error) {
      log.warn({ err: error, storedName: key }, 'thumbnail not removed');
    }
  };
  const partial: PartialContentStore = {
    begin: (key) => store.partial.begin(key),
    append: (key, from, content, options) => store.partial.append(key, from, content, options),
    async finish(key: string, progress: PartialProgress) {
      await store.partial.finish(key, progress);
      thumbnails.schedule(key, progress.size);
    },
    discard: (key, state) => store.partial.discard(key, state),
  };
  const wrapped: ContentStore = {
    async write(key: string, content: Readable, options: WriteOptions) {
      const written = await store.write(key, content, options);
      thumbnails.schedule(key, written.size);
      return written;
    },
    open: (key: string, range?: ByteRange) => store.open(key, range),
    stat: (key) => store.stat(key),
    async delete(key: string) {
      await store.delete(key);
      await deleteThumbnail(key);
    },
    list: (options) => store.list(options),
    sweepIncomplete: (options) => store.sweepIncomplete(options),
    checkWritable: () => store.checkWritable(),
    partial,
  };
  thumbnailsOfStore.set(wrapped, thumbnails);
  return wrapped;
}
