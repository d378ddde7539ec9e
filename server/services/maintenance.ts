// Storage housekeeping (crash safety, ADR 0010), at start and then every hour: leftovers of
// unfinished uploads are removed, and so is content that no record points to (a delete that
// stopped half-way). Records are never removed here: content is written before its record.
// Only what the service itself made is touched: names in the exact stored-name format.
// An upload still being received is never touched, however long it has run: its receiver keeps
// its row of upload_reservations fresh, and what a fresh row names stays (ADR 0029). What no
// fresh row names is a leftover once it is STALE_RESERVATION_MS old (an upload writes its row
// within a minute); content without a record waits an hour, as it may be another instance's
// upload between its content and its record. A start on SQLite is the exception: one process
// owns that data, and before it serves nothing of it is under way, so every leftover goes at
// once, rows included (ADR 0028).
import type { Logger } from 'pino';
import { DOWNLOAD_CLAIM_TTL_SECONDS } from '../auth/download-claim';
import { FileSchema } from '../db/entities/file.entity';
import { goneFileFilters } from '../db/files';
import { LoginAttemptSchema } from '../db/entities/login-attempt.entity';
import { pruneActivityEvents } from './activity';
import { SessionSchema } from '../db/entities/session.entity';
import type { EntityManager } from '../db/orm';
import type { Clock } from '../utilities/clock';
import type { Metrics } from '../metrics';
import type { ContentStore } from '../storage/content-store';
import { DOWNLOAD_TALLY_EVERY_MS, type DownloadTally } from '../instance/download-tally';
import { removeStaleRequestPlaces } from './request-metering';
import { isStoredName } from './files';
import { liveUploadKeys, removeAllReservations, removeStaleReservations, STALE_RESERVATION_MS } from './quotas';
import { removeExpiredResumableUploads, removeStoppedRequestUploads, unfinishedUploadKeys } from './resumable-uploads';
import { removeOrphanThumbnails } from './thumbnails';

/** How old content without a record must be before a round removes it (another instance may be between content and record). */
const SWEEP_MIN_AGE_MS = 60 * 60 * 1000;
/** Stored names looked up per query. */
const LOOKUP_BATCH = 500;

/**
 * One sweep of the storage. `minAgeMs: 0` says the caller is the data's only writer and serves
 * nothing yet (a start on SQLite): every leftover goes however young, whatever its row says,
 * and the rows with them.
 */
export async function reconcileStorage(
  deps: { em: EntityManager; store: ContentStore; log: Logger; clock: Clock },
  options: { minAgeMs?: 0 } = {},
) {
  const { em, store, log, clock } = deps;
  const now = clock.now();
  const soleWriter = options.minAgeMs === 0;
  // Rows of receivers that are gone go first, and with them the quota they held (and the
  // places in file requests of guests' uploads that died with them).
  await (soleWriter ? removeAllReservations({ em }) : removeStaleReservations({ em, clock }));
  await removeStaleRequestPlaces({ em, clock }, soleWriter);
  // Read before the store's listing: an upload begun in between is younger than the age below.
  const live = soleWriter ? new Set<string>() : await liveUploadKeys({ em, clock });
  // Resumable uploads under way keep their multipart uploads open for up to a day (ADR 0019).
  const keep = new Set([...live, ...(await unfinishedUploadKeys(em))]);
  const leftoverBefore = new Date(soleWriter ? now : now - STALE_RESERVATION_MS);
  const incomplete = await store.sweepIncomplete({ modifiedBefore: leftoverBefore, keep });
  const orphanBefore = new Date(soleWriter ? now : now - SWEEP_MIN_AGE_MS);
  const listed = await store.list({ modifiedBefore: orphanBefore });
  const candidates = listed.filter((key) => isStoredName(key) && !live.has(key));

  let orphans = 0;
  for (let i = 0; i < candidates.length; i += LOOKUP_BATCH) {
    const batch = candidates.slice(i, i + LOOKUP_BATCH);
    const records = await em.find(FileSchema, { storedName: { $in: batch } }, { fields: ['storedName'] });
    const known = new Set(records.map((file) => file.storedName));
    for (const key of batch.filter((name) => !known.has(name))) {
      await store.delete(key);
      orphans++;
    }
  }
  // Thumbnails are not stored names: those of files without a record go here (ADR 0041).
  orphans += await removeOrphanThumbnails({ em, store }, listed);
  if (incomplete || orphans) log.warn({ incomplete, orphans }, 'swept leftovers of unfinished uploads and deletes');
  return { incomplete, orphans };
}

/** Links that expired or used up their downloads, removed per round in batches of this many. */
const EXPIRED_BATCH = 200;

/**
 * Removes every file whose link has expired or used up its downloads (ADR 0014): the row first,
 * then the content, as a delete does. A used-up link goes once the claims on its downloads have
 * run out, so that whoever counted the last one can still finish it (ADR 0056). Safe beside other
 * instances: a row goes only through the one DELETE that removes it, and only that caller removes
 * the content.
 */
export async function removeExpiredFiles(deps: { em: EntityManager; store: ContentStore; log: Logger; clock: Clock }) {
  const { em, store, log, clock } = deps;
  const now = new Date(clock.now());
  const claimsFrom = new Date(clock.now() - DOWNLOAD_CLAIM_TTL_SECONDS * 1000);
  // Two conditions, each read through its own index.
  const conditions = goneFileFilters(now, claimsFrom);
  let removed = 0;
  for (const gone of conditions) {
    for (;;) {
      const batch = await em.find(FileSchema, gone, {
        fields: ['id', 'storedName'],
        limit: EXPIRED_BATCH,
        disableIdentityMap: true,
      });
      let removedNow = 0;
      for (const file of batch) {
        if ((await em.nativeDelete(FileSchema, { id: file.id, ...gone })) === 0) continue; // another instance got it
        removedNow++;
        try {
          await store.delete(file.storedName);
        } catch (error) {
          log.warn({ err: error, fileId: file.id }, 'content of an expired file not removed; left to the sweep');
        }
      }
      removed += removedNow;
      if (batch.length < EXPIRED_BATCH || removedNow === 0) break;
    }
  }
  if (removed) log.info({ removed }, 'removed files whose links expired or used up their downloads');
  return removed;
}

/** Expired links are removed within a minute. */
const EXPIRY_SWEEP_EVERY_MS = 60 * 1000;

const MAINTENANCE_EVERY_MS = 60 * 60 * 1000;

/**
 * Runs the housekeeping every hour while the server runs: leftovers too young at start are
 * removed at a later round, and expired sessions and login counters are dropped.
 * Safe beside other instances: every step only deletes what nobody can still use.
 */
export function scheduleMaintenance(
  deps: {
    orm: { em: { fork(): EntityManager } };
    store: ContentStore;
    log: Logger;
    clock: Clock;
    downloads: DownloadTally;
    metrics: Metrics;
    config: { activityRetentionDays: number };
  },
  options: { expirySweepEveryMs?: number } = {},
): () => void {
  const round = async () => {
    const em = deps.orm.em.fork();
    try {
      const swept = await reconcileStorage({ em, store: deps.store, log: deps.log, clock: deps.clock });
      deps.metrics.swept('storage', swept.incomplete + swept.orphans);
      await em.nativeDelete(SessionSchema, { expiresAt: { $lt: new Date(deps.clock.now()) } });
      await em.nativeDelete(LoginAttemptSchema, { windowEndsAt: { $lte: deps.clock.now() } });
      await pruneActivityEvents({ em, clock: deps.clock }, deps.config.activityRetentionDays);
    } catch (error) {
      deps.log.warn({ err: error }, 'housekeeping round failed; the next one tries again');
    }
  };
  const expirySweep = async () => {
    try {
      const em = deps.orm.em.fork();
      deps.metrics.swept(
        'expired_files',
        await removeExpiredFiles({ em, store: deps.store, log: deps.log, clock: deps.clock }),
      );
      // Rows of uploads whose receiver is gone, and the quota they held (ADR 0018, ADR 0029).
      await removeStaleReservations({ em, clock: deps.clock });
      // Resumable uploads left unfinished for a day, with their bytes (ADR 0019).
      const uploads = await removeExpiredResumableUploads({ em, store: deps.store, log: deps.log, clock: deps.clock });
      // Guests' uploads into file requests closed or expired since, with their bytes (ADR 0048).
      const stopped = await removeStoppedRequestUploads({ em, store: deps.store, log: deps.log, clock: deps.clock });
      deps.metrics.swept('resumable_uploads', uploads + stopped);
    } catch (error) {
      deps.log.warn({ err: error }, 'expiry sweep failed; the next one tries again');
    }
  };
  const timer = setInterval(() => void round(), MAINTENANCE_EVERY_MS);
  const expiryTimer = setInterval(() => void expirySweep(), options.expirySweepEveryMs ?? EXPIRY_SWEEP_EVERY_MS);
  // Never rejects: a failed write keeps its counts for the next one.
  const tallyTimer = setInterval(() => void deps.downloads.flush(), DOWNLOAD_TALLY_EVERY_MS);
  for (const each of [timer, expiryTimer, tallyTimer]) each.unref();
  return () => {
    clearInterval(timer);
    clearInterval(expiryTimer);
    clearInterval(tallyTimer);
  };
}
