// The composition root: configuration in, every long-lived part of the service out. The
// server, the CLI and the test harness all build their parts here, so there is one wiring.
import type { Logger } from 'pino';
import { systemClock, type Clock } from './utilities/clock';
import type { Config } from './config';
import type { LogLevel } from './utilities/logger';
import type { AppDeps } from './context';
import { probeDatabaseWrite } from './db/database-health';
import { ResumableUploadSchema } from './db/entities/resumable-upload.entity';
import { openDirectSql } from './db/direct-sql';
import { initOrm } from './db/orm';
import { createHighlighter } from './highlight/highlighter';
import { logDestination } from './utilities/log-output';
import { createLogger } from './utilities/logger';
import { createMetrics } from './metrics';
import { OutageTracker } from './outages/tracker';
import { ArchivePlanCache } from './instance/archive-plan-cache';
import { DownloadTally } from './instance/download-tally';
import { pruneActivityEvents } from './services/activity';
import { reconcileStorage, removeExpiredFiles, scheduleMaintenance } from './services/maintenance';
import { withThumbnails } from './services/thumbnails';
import type { ContentStore } from './storage/content-store';
import { LocalDiskStore } from './storage/local-disk-store';
import { WebhookDeliverer } from './webhooks/deliverer';

export interface Deps extends AppDeps {
  /** Writes the last download counts, closes the database (the store holds nothing open) and ends the highlighter's threads. */
  close(): Promise<void>;
}

/** Logger, database (migrated), content store. A failure to open the database rejects. */
export async function createDeps(
  config: Config,
  options: {
    logLevel?: LogLevel;
    clock?: Clock;
    /** A preview's budget other than the second of ADR 0054 (a test of what is shown past it). */
    previewBudgetMs?: number;
  } = {},
): Promise<Deps> {
  const log = createLogger(options.logLevel ?? config.logLevel, await logDestination());
  const orm = await initOrm(config.database, log);
  // Images get their thumbnails beside them, and lose them with their content (ADR 0041).
  const store = withThumbnails(await createContentStore(config, log), log);
  const sql = openDirectSql(orm, config.database);
  const downloads = new DownloadTally(sql, log);
  const metrics = createMetrics(config);
  const outages = new OutageTracker(
    log,
    { database: () => probeDatabaseWrite(orm), storage: () => store.checkWritable() },
    undefined,
    (dependency) => metrics.dependencyFailed(dependency),
  );
  // Resumable uploads begun and neither finished nor expired: read when Prometheus asks.
  metrics.countResumableUploadsWith(() =>
    orm.em.fork().count(ResumableUploadSchema, { finishedAt: null, expiresAt: { $gt: new Date() } }),
  );
  // Its threads start with the first preview it colours (ADR 0054).
  const highlighter = createHighlighter(log, options.previewBudgetMs);
  const close = async () => {
    outages.stop();
    await highlighter.close();
    await downloads.flush();
    await sql.close();
    await orm.close();
  };
  const clock = options.clock ?? systemClock;
  return {
    config,
    log,
    orm,
    sql,
    store,
    clock,
    downloads,
    archivePlans: new ArchivePlanCache(),
    outages,
    metrics,
    highlighter,
    close,
  };
}

export async function createContentStore(config: Config, log: Logger): Promise<ContentStore> {
  const { storage } = config;
  if (storage.kind === 'disk') return new LocalDiskStore(storage.dir, { log });
  // Loaded only when configured: the AWS SDK is about 20 MB of a disk-only server's memory.
  const { S3Store } = await import('./storage/s3-store');
  return new S3Store(storage, log);
}

/**
 * What a serving process does before it answers: remove what expired while it was down and
 * sweep what crashed runs left; then keep doing both (expired links every minute, leftovers
 * every hour), and send webhook deliveries. Returns the function that stops all of it; it
 * resolves once the deliveries under way are sent and their outcome written, so the database
 * is closed after them, not under them.
 */
export async function startHousekeeping(
  deps: AppDeps,
  options: { expirySweepEveryMs?: number } = {},
): Promise<() => Promise<void>> {
  const parts = { em: deps.orm.em.fork(), store: deps.store, log: deps.log, clock: deps.clock };
  deps.metrics.swept('expired_files', await removeExpiredFiles(parts));
  // A crash mid-upload leaves nothing once the service runs again. On SQLite this
  // process is the data's only writer (several instances need PostgreSQL), and it serves nothing
  // yet: whatever is unfinished is a crashed run's, however young (ADR 0028).
  const soleWriter = deps.config.database.dialect === 'sqlite';
  const swept = await reconcileStorage(parts, soleWriter ? { minAgeMs: 0 } : {});
  deps.metrics.swept('storage', swept.incomplete + swept.orphans);
  // Activity events past their keeping (ADR 0087); then every hour with the rest.
  await pruneActivityEvents(parts, deps.config.activityRetentionDays);
  const stopMaintenance = scheduleMaintenance(deps, options);
  // Webhook deliveries, off the requests' path: queued ones a crash left are sent now (ADR 0050).
  const deliverer = new WebhookDeliverer(deps);
  deliverer.start();
  return async () => {
    stopMaintenance();
    await deliverer.stop();
  };
}
