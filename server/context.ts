import type { EntityManager } from '@mikro-orm/knex';
import type { Logger } from 'pino';
import type { Clock } from './utilities/clock';
import type { Config } from './config';
import type { DirectSql } from './db/direct-sql';
import type { Highlighter } from './highlight/highlighter';
import type { Metrics } from './metrics';
import type { OutageTracker } from './outages/tracker';
import type { ArchivePlanCache } from './instance/archive-plan-cache';
import type { DownloadTally } from './instance/download-tally';
import type { ContentStore } from './storage/content-store';

/** The signed-in user as every door sees it. */
export interface AuthUser {
  id: string;
  username: string;
}

/** What every service function gets: one unit of work per request (a forked EntityManager). */
export interface ServiceContext {
  em: EntityManager;
  /** The hot statements, written out (db/direct-sql.ts). */
  sql: DirectSql;
  config: Config;
  /**
   * Where links shown to people start: BASE_URL (or its default), or on pages and their tRPC
   * calls while BASE_URL is unset, the address the visitor used (http/link-base.ts).
   */
  linkBase: string;
  store: ContentStore;
  log: Logger;
  clock: Clock;
  /** Counts downloads of links without a limit, and views of share pages (ADR 0066), written once a second. */
  downloads: DownloadTally;
  /** The collection archives laid out lately, kept while their collections say the same (ADR 0055). */
  archivePlans: ArchivePlanCache;
  /** Recognises database and storage outages and logs each once (ADR 0030): every door asks it. */
  outages: OutageTracker;
  /** The instance's Prometheus counters (ADR 0049); no-ops while metrics are off. */
  metrics: Metrics;
  /** Colours text previews in a worker thread, within a time budget (ADR 0054). */
  highlighter: Highlighter;
  user: AuthUser | null;
  /** How `user` was recognised: a session cookie (pages, the UI, scripts that log in) or an API token. */
  authMethod: 'session' | 'token' | null;
  /** The session the request came with (when `authMethod` is 'session'): "this session" on the settings page. */
  sessionId: string | null;
  /** The caller's network address (behind a proxy: as TRUST_PROXY allows); null outside HTTP. */
  clientAddress: string | null;
  /** The caller's User-Agent header; null outside HTTP. */
  userAgent: string | null;
  /**
   * The signed-in user's quota columns, read in the same statement as their session (one
   * lookup fewer per upload); null when the user came otherwise (an API token, a service call).
   */
  userQuotaColumns: UserQuotaColumns | null;
}

/**
 * A user's own quota setting as a query returns it (SQLite gives the flag as 0 or 1, PostgreSQL
 * the bigint as text); `quotaOf` (services/quotas.ts) turns it into the quota that applies.
 */
export interface UserQuotaColumns {
  hasOwnQuota: boolean | number;
  quotaBytes: number | string | null;
}

/** The long-lived parts a request context is made from. */
export interface AppDeps {
  config: Config;
  orm: import('./db/orm').Orm;
  sql: DirectSql;
  store: ContentStore;
  log: Logger;
  clock: Clock;
  downloads: DownloadTally;
  archivePlans: ArchivePlanCache;
  outages: OutageTracker;
  metrics: Metrics;
  highlighter: Highlighter;
}

export function createServiceContext(deps: AppDeps, log: Logger = deps.log): ServiceContext {
  let em: EntityManager | undefined;
  return {
    // Forked on first use: a request that never reaches the database skips it.
    get em() {
      em ??= deps.orm.em.fork();
      return em;
    },
    sql: deps.sql,
    config: deps.config,
    linkBase: deps.config.baseUrl,
    store: deps.store,
    log,
    clock: deps.clock,
    downloads: deps.downloads,
    archivePlans: deps.archivePlans,
    outages: deps.outages,
    metrics: deps.metrics,
    highlighter: deps.highlighter,
    user: null,
    authMethod: null,
    sessionId: null,
    clientAddress: null,
    userAgent: null,
    userQuotaColumns: null,
  };
}
