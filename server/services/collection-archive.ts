// A collection's "Download all" archive (ADR 0036), laid out once and kept while the collection
// says the same (ADR 0055). Laying out 10,000 entries reads every file's row and costs a few
// hundred milliseconds of CPU; a request for a kept plan reads one small row instead: the
// collection's files version (bumped in the transaction of every change of its files, their
// paths or order, or of a file's own expiry or download limit) and its count of files (which a
// file deleted on its own lowers). Time and downloads decide the rest: a kept plan is laid out
// again once a file in it expires, or, for a collection with limited files, once another of
// them has used up its downloads. Every instance keeps its own plans; the rows in the shared
// database decide on all of them alike.
import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { setTimeout as pause } from 'node:timers/promises';
import { ArchiveNamer } from '../archive/archive-paths';
import { contentCrc32 } from '../archive/content-crc32';
import { sendZip } from '../archive/send-zip';
import { type ZipByteRange, ZipPlanner } from '../archive/zip-plan';
import type { ServiceContext } from '../context';
import {
  type CollectionEntry,
  countUsedUpFilesOfCollection,
  selectCollectionEntries,
  selectCollectionFilesState,
} from '../db/collections';
import { FileSchema } from '../db/entities/file.entity';
import { StorageUnavailableError } from '../storage/content-store';
import type { PlannedArchive } from '../instance/archive-plan-cache';
import { goneReason } from './share-settings';

export interface CollectionArchive {
  size: number;
  /** Strong: changes with any file, path or order, so If-Range never joins two different archives. */
  etag: string;
  /** Sends the archive's bytes, all or one range, into `destination` and ends it. */
  send(range: ZipByteRange | null, destination: Writable): Promise<void>;
}

/** How long laying out holds the event loop at a time; then it leaves it twice as long to other requests. */
const TURN_MS = 5;
/** What a kept plan holds per entry besides its name (fields, offsets, stored name): about 190 bytes measured. */
const HELD_BYTES_PER_ENTRY = 200;

/** The "Download all" archive of a collection its door has opened, laid out in full. */
export async function collectionArchive(ctx: ServiceContext, collectionId: string): Promise<CollectionArchive> {
  const state = await collectionState(ctx, collectionId);
  const kept = state === null ? undefined : ctx.archivePlans.find(collectionId, state);
  const archive =
    kept && (await stillWhole(ctx, collectionId, kept))
      ? kept
      : await ctx.archivePlans.layOut(collectionId, state ?? '', async () => {
          const laidOut = await layOut(ctx, collectionId);
          // Changed meanwhile: this request's archive, but not one to keep as that state's.
          const keep = state !== null && (await collectionState(ctx, collectionId)) === state;
          return { archive: laidOut, keep };
        });
  return {
    size: archive.plan.size,
    etag: archive.etag,
    send: (range, destination) =>
      sendZip(
        archive.plan,
        range,
        async (index, start, end, into) =>
          (await ctx.store.open(archive.storedNames[index], { start, end })).pipeTo(into, { end: false }),
        destination,
      ),
  };
}

/**
 * The collection's files, paths and order as one string (its files version and count of
 * files): equal strings, equal files. Null when the collection has just been deleted.
 */
async function collectionState(ctx: ServiceContext, collectionId: string): Promise<string | null> {
  const row = await selectCollectionFilesState(ctx.sql, collectionId);
  return row ? `${row.version}/${row.files}` : null;
}

/** Whether a kept plan still leaves out exactly the files whose own links are gone. */
async function stillWhole(ctx: ServiceContext, collectionId: string, archive: PlannedArchive): Promise<boolean> {
  if (ctx.clock.now() >= archive.goneWhen.firstExpiry) return false;
  if (archive.goneWhen.usedUp === null) return true;
  return (await countUsedUpFilesOfCollection(ctx.sql, collectionId)) === archive.goneWhen.usedUp;
}

/**
 * Lays out the archive of the collection's files whose own links are live, a few milliseconds
 * at a time: 10,000 entries take a few hundred milliseconds of CPU, which other requests must
 * not wait for.
 */
async function layOut(ctx: ServiceContext, collectionId: string): Promise<PlannedArchive> {
  const now = ctx.clock.now();
  const entries = await selectCollectionEntries(ctx.sql, collectionId);
  const live = entries.filter((entry) => goneReason(entry, now) === null);
  const turns = new Turns();
  const namer = new ArchiveNamer();
  for (const entry of live) {
    namer.reserve(entry.path);
    await turns.pass();
  }
  const planner = new ZipPlanner();
  const identity = createHash('sha256');
  let namesBytes = 0;
  for (const entry of live) {
    const name = namer.nameNext();
    const { size } = entry;
    // One at a time: a collection of older files reads each once, not all of them at the same moment.
    const crc32 = entry.crc32 ?? (await computeCrc32(ctx, entry));
    planner.add({ name, size, crc32, modifiedAt: entry.createdAt });
    identity.update(`${entry.id}\0${name}\0${size}\0${crc32}\n`);
    namesBytes += Buffer.byteLength(name);
    await turns.pass();
  }
  return {
    plan: planner.finish(),
    storedNames: live.map((entry) => entry.storedName),
    etag: `"c-${identity.digest('base64url').slice(0, 27)}"`,
    goneWhen: {
      firstExpiry: live.reduce(
        (first, entry) => Math.min(first, entry.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY),
        Number.POSITIVE_INFINITY,
      ),
      // As countUsedUpFilesOfCollection counts them.
      usedUp: entries.some((entry) => entry.maxDownloads !== null)
        ? entries.filter((entry) => entry.maxDownloads !== null && entry.downloads >= entry.maxDownloads).length
        : null,
    },
    heldBytes: live.length * HELD_BYTES_PER_ENTRY + namesBytes,
  };
}

/**
 * Lets other requests have the event loop once laying out has held it for TURN_MS, for twice as
 * long: laying out takes at most a third of the loop's time, and the process is not always busy,
 * so that on a machine whose cores are all taken the scheduler does not make every other request
 * wait for laying out's turns too.
 */
class Turns {
  private since = performance.now();

  async pass(): Promise<void> {
    if (performance.now() - this.since < TURN_MS) return;
    await pause(2 * TURN_MS);
    this.since = performance.now();
  }
}

/**
 * The CRC-32 of a file recorded before it was kept at upload (or finished as a resumable upload):
 * computed once from its content, and kept.
 */
async function computeCrc32(ctx: ServiceContext, file: CollectionEntry): Promise<number> {
  const { crc32, size } = await contentCrc32((await ctx.store.open(file.storedName)).stream);
  if (size !== Number(file.size))
    throw new StorageUnavailableError(
      `The content of file ${file.id} holds ${size} bytes where ${file.size} were recorded`,
    );
  await ctx.em.nativeUpdate(FileSchema, { id: file.id }, { crc32 });
  return crc32;
}
