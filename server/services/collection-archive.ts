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
import { FileSchema } from '../db/entities/file.entity';
import { type StoredDate, storedDateMillis } from '../db/stored-date';
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
/** Files read a statement: each statement's rows become objects on the event loop at once. */
const ROWS_PER_READ = 1_000;
/** What a kept plan holds per entry besides its name (fields, offsets, stored name): about 190 bytes measured. */
const HELD_BYTES_PER_ENTRY = 200;

// One statement, so that the version and the count are read together.
const COLLECTION_STATE =
  'select "c"."files_version" as "version", ' +
  '(select count(*) from "collection_files" "m" where "m"."collection_id" = "c"."id") as "files" ' +
  'from "collections" "c" where "c"."id" = ?';

// The files after a place, in order. Two files that join at the same moment can take the same
// place: the file id orders them, as everywhere (collections.ts, entriesOf), so that the archive
// never changes between requests.
const ENTRIES_AFTER =
  'select "m"."position" as "position", "m"."file_id" as "id", "m"."path" as "path", "f"."size" as "size", ' +
  '"f"."crc32" as "crc32", "f"."created_at" as "createdAt", "f"."stored_name" as "storedName", ' +
  '"f"."expires_at" as "expiresAt", "f"."max_downloads" as "maxDownloads", "f"."downloads" as "downloads" ' +
  'from "collection_files" "m" join "files" "f" on "f"."id" = "m"."file_id" ' +
  'where "m"."collection_id" = ? and "m"."position" >= ? and ("m"."position" > ? or "m"."file_id" > ?) ' +
  `order by "m"."position", "m"."file_id" limit ${ROWS_PER_READ}`;

// Downloads only ever add up, so a link once used up stays so: a count that has not grown names the same files.
const USED_UP_FILES =
  'select count(*) as "files" from "collection_files" "m" join "files" "f" on "f"."id" = "m"."file_id" ' +
  'where "m"."collection_id" = ? and "f"."max_downloads" is not null and "f"."downloads" >= "f"."max_downloads"';

interface EntryRow {
  position: number;
  id: string;
  path: string;
  size: number | string;
  crc32: number | string | null;
  createdAt: StoredDate;
  storedName: string;
  expiresAt: StoredDate;
  maxDownloads: number | string | null;
  downloads: number | string;
}

/** A file of the collection, as its archive needs it. */
interface Entry {
  id: string;
  path: string;
  size: number;
  crc32: number | null;
  createdAt: Date;
  storedName: string;
  expiresAt: Date | null;
  maxDownloads: number | null;
  downloads: number;
}

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
  const [row] = await ctx.sql.select<{ version: number | string; files: number | string }>(COLLECTION_STATE, [
    collectionId,
  ]);
  return row ? `${row.version}/${row.files}` : null;
}

/** Whether a kept plan still leaves out exactly the files whose own links are gone. */
async function stillWhole(ctx: ServiceContext, collectionId: string, archive: PlannedArchive): Promise<boolean> {
  if (ctx.clock.now() >= archive.goneWhen.firstExpiry) return false;
  if (archive.goneWhen.usedUp === null) return true;
  const [row] = await ctx.sql.select<{ files: number | string }>(USED_UP_FILES, [collectionId]);
  return Number(row?.files ?? 0) === archive.goneWhen.usedUp;
}

/**
 * Lays out the archive of the collection's files whose own links are live, a few milliseconds
 * at a time: 10,000 entries take a few hundred milliseconds of CPU, which other requests must
 * not wait for.
 */
async function layOut(ctx: ServiceContext, collectionId: string): Promise<PlannedArchive> {
  const now = ctx.clock.now();
  const entries = await entriesOf(ctx, collectionId);
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
      // As USED_UP_FILES counts them.
      usedUp: entries.some((entry) => entry.maxDownloads !== null)
        ? entries.filter((entry) => entry.maxDownloads !== null && entry.downloads >= entry.maxDownloads).length
        : null,
    },
    heldBytes: live.length * HELD_BYTES_PER_ENTRY + namesBytes,
  };
}

/** The collection's files in order, read ROWS_PER_READ at a time. */
async function entriesOf(ctx: ServiceContext, collectionId: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after = { position: -1, id: '' };
  for (;;) {
    const rows = await ctx.sql.select<EntryRow>(ENTRIES_AFTER, [
      collectionId,
      after.position,
      after.position,
      after.id,
    ]);
    // Dates and numbers as each dialect returns them (PostgreSQL gives bigint as text).
    for (const row of rows)
      entries.push({
        id: row.id,
        path: row.path,
        size: Number(row.size),
        crc32: row.crc32 === null ? null : Number(row.crc32),
        createdAt: new Date(storedDateMillis(row.createdAt) ?? 0),
        storedName: row.storedName,
        expiresAt: row.expiresAt === null ? null : new Date(storedDateMillis(row.expiresAt) ?? 0),
        maxDownloads: row.maxDownloads === null ? null : Number(row.maxDownloads),
        downloads: Number(row.downloads),
      });
    if (rows.length < ROWS_PER_READ) return entries;
    after = { position: Number(rows[rows.length - 1].position), id: rows[rows.length - 1].id };
  }
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
async function computeCrc32(ctx: ServiceContext, file: Entry): Promise<number> {
  const { crc32, size } = await contentCrc32((await ctx.store.open(file.storedName)).stream);
  if (size !== Number(file.size))
    throw new StorageUnavailableError(
      `The content of file ${file.id} holds ${size} bytes where ${file.size} were recorded`,
    );
  await ctx.em.nativeUpdate(FileSchema, { id: file.id }, { crc32 });
  return crc32;
}
