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
import { loadConfig, type Config } from '../../server/config';
import { createServiceContext } from '../../server/context';
import type { Orm } from '../../server/db/orm';
import { createDeps, startHousekeeping } from '../../server/deps';
import { applyServerTimeouts } from '../../server/http/server-timeouts';
import { registerUser } from '../../server/services/users';

export const TEST_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TestApp {
  url: string;
  config: Config;
  orm: Orm;
  dataDir: string;
  /** Creates a user the way the CLI does (same service) and returns its id. */
  createUser(username: string, password?: string): Promise<string>;
  /** Logs in over HTTP and returns the Cookie header value for later requests. */
  login(username: string, password?: string): Promise<string>;
  /** Files currently under UPLOAD_DIR (the temporary folder excluded) and in it. */
  storedFiles(): string[];
  incompleteFiles(): string[];
  /** Rows of a table, straight from SQLite. */
  rows(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
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

/** The environment of a fresh PostgreSQL database and a fresh bucket, on the run's servers. */
export async function postgresS3Env(): Promise<Record<string, string>> {
  const { freshDatabaseUrl } = await import('./databases');
  const { freshBucketEnv } = await import('./buckets');
  return { DATABASE_URL: await freshDatabaseUrl('postgresql'), ...(await freshBucketEnv()) };
}

export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  // Listen first, so that BASE_URL can default to the real port, as it does in production.
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  const dataDir = env.DATA_DIR ?? tempDir();
  const finalConfig = loadConfig({ SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', BASE_URL: url, ...env, DATA_DIR: dataDir });
  const deps = await createDeps(finalConfig);
  const { orm } = deps;
  const stopHousekeeping = await startHousekeeping(deps);
  const build = await loadBuild();
  applyServerTimeouts(server, finalConfig);
  server.on('request', createApp({ ...deps, build, assetsDir: path.join(ROOT, 'public/build') }));

  const testApp: TestApp = {
    url,
    config: finalConfig,
    orm,
    dataDir,
    async createUser(username, password = DEFAULT_PASSWORD) {
      const ctx = createServiceContext(deps);
      return (await registerUser(ctx, { username, password })).id;
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
    storedFiles() {
      return fs.readdirSync(finalConfig.uploadDir).filter((name) => !name.startsWith('.')).sort();
    },
    incompleteFiles() {
      return fs.readdirSync(path.join(finalConfig.uploadDir, '.incomplete'));
    },
    async rows(sql, params = []) {
      return orm.em.fork().getConnection().execute(sql, params as never[]);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      stopHousekeeping();
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
export function fileForm(content: string | Uint8Array, filename: string, type = 'application/octet-stream', field = 'file') {
  const form = new FormData();
  form.append(field, new Blob([content as BlobPart], { type }), filename);
  return form;
}
