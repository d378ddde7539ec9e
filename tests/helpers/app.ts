// Starts the real app in this process on port 0, over a fresh data dir with a real SQLite
// file, exactly as server/index.ts wires it (minus signals). Nothing of ours is mocked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServerBuild } from '@remix-run/node';
import { createApp } from '../../server/app';
import { discoverOidcProvider } from '../../server/auth/oidc-client';
import { loadConfig, type Config } from '../../server/config';
import type { Orm } from '../../server/db/orm';
import type { Clock } from '../../server/utilities/clock';
import { createDeps, startHousekeeping } from '../../server/deps';
import { provision } from '../../server/provision';
import type { ContentStore } from '../../server/storage/content-store';
import { applyServerTimeouts } from '../../server/http/server-timeouts';
import { CHECKED_LOG_LEVEL, checkErrorLogs } from './error-logs';
import { queryPostgres } from './outside-reader';
import { backendEnv, inspectContent } from './test-backend';
import { seedSqliteDatabase } from './sqlite-template';
import { seedUser } from './seed-users';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TestApp {
  url: string;
  config: Config;
  orm: Orm;
  dataDir: string;
  /** The environment it was started with (BASE_URL aside): start it again on the same data with this. */
  env: Record<string, string>;
  /** Creates a user as the CLI does, with a hash of a low work factor (tests/helpers/seed-users.ts), and returns its id. */
  createUser(username: string, password?: string): Promise<string>;
  /** Logs in over HTTP and returns the Cookie header value for later requests. */
  login(username: string, password?: string): Promise<string>;
  /** Stored names of the content in UPLOAD_DIR or the bucket, sorted. */
  storedFiles(): Promise<string[]>;
  /** Unfinished uploads: temporary files, or multipart uploads neither completed nor aborted. */
  incompleteFiles(): Promise<string[]>;
  /** What resumable uploads under way keep in storage (partial files; open multipart uploads and tails). */
  partialContent(): Promise<string[]>;
  /** The bytes stored under a stored name, or null. */
  readStored(storedName: string): Promise<Buffer | null>;
  /** Removes stored content behind the service's back. */
  removeStored(storedName: string): Promise<void>;
  /** Makes the (empty) storage refuse new content until the returned function repairs it. */
  breakStorageWrites(): Promise<() => Promise<void>>;
  /** The lines logged so far, as JSON objects (only with the start option `keepLogLines`). */
  logLines(): Array<Record<string, unknown>>;
  /** Runs SQL on the app's database (`?` placeholders; 64-bit integers come back as numbers). */
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Closes every connection the app has to its database, as when the database goes away. */
  closeDatabase(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_PASSWORD = 'correct horse battery';

let buildPromise: Promise<ServerBuild> | null = null;
function loadBuild(): Promise<ServerBuild> {
  buildPromise ??= import(pathToFileURL(path.join(ROOT, 'build/index.js')).href) as Promise<ServerBuild>;
  return buildPromise;
}

export function tempDir(prefix = 'fs-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface StartOptions {
  /** The service's clock (default: the system's); a TestClock lets a test move time on. */
  clock?: Clock;
  /** How often expired links are swept (default: every minute, as in production). */
  expirySweepEveryMs?: number;
  /** Puts a layer around the content store (to make it fail at a chosen step, as a crash would). */
  wrapStore?: (store: ContentStore) => ContentStore;
  /**
   * Keeps the lines the app logs (at the LOG_LEVEL the test gives it) for `logLines()`, instead
   * of writing them out.
   */
  keepLogLines?: boolean;
  /** Starts it as an operator who set no BASE_URL does (its default then names localhost and the port). */
  withoutBaseUrl?: boolean;
  /** A text or Markdown preview's time budget (default: a second, ADR 0054). */
  previewBudgetMs?: number;
}

export async function startApp(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApp> {
  // Listen first, so that BASE_URL can default to the real port, as it does in production.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const dataDir = env.DATA_DIR ?? tempDir();
  // A test that names its database or bucket gets exactly that; others get the run's backend.
  const backend = env.DATABASE_URL || env.S3_BUCKET ? {} : await backendEnv();
  const startEnv = { SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', ...backend, ...env, DATA_DIR: dataDir };
  const address = options.withoutBaseUrl ? { PORT: String(port) } : { BASE_URL: url };
  const finalConfig = provision(loadConfig({ ...address, ...startEnv }));
  const content = inspectContent(finalConfig);
  // Unless the test names a log level, its app logs only error and fatal lines, and each fails
  // the test it happens in unless the test expects it (tests/helpers/error-logs.ts).
  const ownLevel = env.LOG_LEVEL !== undefined;
  seedSqliteDatabase(finalConfig.database);
  const deps = await createDeps(finalConfig, {
    clock: options.clock,
    logLevel: ownLevel ? undefined : CHECKED_LOG_LEVEL,
    previewBudgetMs: options.previewBudgetMs,
  });
  const logged: string[] = [];
  checkErrorLogs(deps.log, {
    keepWriting: ownLevel && !options.keepLogLines,
    keep: options.keepLogLines ? (line) => logged.push(line) : undefined,
  });
  if (options.wrapStore) deps.store = options.wrapStore(deps.store);
  const { orm } = deps;
  const stopHousekeeping = await startHousekeeping(deps, { expirySweepEveryMs: options.expirySweepEveryMs });
  const build = await loadBuild();
  applyServerTimeouts(server, finalConfig);
  // As server/index.ts: with OIDC_ISSUER, the provider is discovered before the app serves.
  const oidc = await discoverOidcProvider(finalConfig).catch(async (error: unknown) => {
    await stopHousekeeping();
    await deps.close();
    server.close();
    throw error;
  });
  server.on('request', createApp({ ...deps, build, assetsDir: path.join(ROOT, 'public/build'), oidc }));

  const testApp: TestApp = {
    url,
    config: finalConfig,
    orm,
    dataDir,
    env: startEnv,
    async createUser(username, password = DEFAULT_PASSWORD) {
      return (await seedUser(orm, username, password, deps.clock.now())).id;
    },
    async login(username, password = DEFAULT_PASSWORD) {
      const res = await fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
      return cookieFrom(res);
    },
    storedFiles: () => content.stored(),
    incompleteFiles: () => content.incomplete(),
    partialContent: () => content.partial(),
    logLines: () => logged.map((line) => JSON.parse(line) as Record<string, unknown>),
    readStored: (storedName) => content.read(storedName),
    removeStored: (storedName) => content.remove(storedName),
    breakStorageWrites: () => content.breakWrites(),
    async rows(sql, params = []) {
      const { database } = finalConfig;
      if (database.dialect === 'postgresql') return queryPostgres(database.url, [{ sql, params }]);
      return orm.em
        .fork()
        .getConnection()
        .execute(sql, params as never[]);
    },
    async closeDatabase() {
      await deps.sql.close();
      await orm.close(true);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stopHousekeeping();
      await deps.close();
    },
  };
  return testApp;
}

/** `token=…` from a response's Set-Cookie, ready for a Cookie header. */
export function cookieFrom(res: Response): string {
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('token='));
  if (!setCookie) throw new Error('no session cookie in the response');
  return setCookie.split(';')[0];
}

/** A multipart body with one file part, as curl -F would send it. */
export function fileForm(
  content: string | Uint8Array,
  filename: string,
  type = 'application/octet-stream',
  field = 'file',
  /** Text fields sent before the file part (share settings). */
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append(field, new Blob([content as BlobPart], { type }), filename);
  return form;
}

/** The system's time moved on by however much a test says: expiry without waiting for it. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
