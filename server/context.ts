import type { EntityManager } from '@mikro-orm/knex';
import type { Logger } from 'pino';
import type { Clock } from './clock';
import type { Config } from './config';
import type { ContentStore } from './storage/content-store';

/** The signed-in user as every door sees it. */
export interface AuthUser {
  id: string;
  username: string;
}

/** What every service function gets: one unit of work per request (a forked EntityManager). */
export interface ServiceContext {
  em: EntityManager;
  config: Config;
  store: ContentStore;
  log: Logger;
  clock: Clock;
  user: AuthUser | null;
  /** How `user` was recognised: a session cookie (pages, the UI, scripts that log in) or an API token. */
  authMethod: 'session' | 'token' | null;
  /** The session the request came with (when `authMethod` is 'session'): "this session" on the settings page. */
  sessionId: string | null;
  /** The caller's network address (behind a proxy: as TRUST_PROXY allows); null outside HTTP. */
  clientAddress: string | null;
  /** The caller's User-Agent header; null outside HTTP. */
  userAgent: string | null;
}

/** The long-lived parts a request context is made from. */
export interface AppDeps {
  config: Config;
  orm: import('./db/orm').Orm;
  store: ContentStore;
  log: Logger;
  clock: Clock;
}

export function createServiceContext(deps: AppDeps, log: Logger = deps.log): ServiceContext {
  return { em: deps.orm.em.fork(), config: deps.config, store: deps.store, log, clock: deps.clock, user: null, authMethod: null, sessionId: null, clientAddress: null, userAgent: null };
}
