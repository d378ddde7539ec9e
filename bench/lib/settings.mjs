// The bench's settings, read once from the BENCH_* variables (docs/performance.md), and what the
// runner and the phases share: the repository's root, the phases on the disk service, the users.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MiB = 1024 * 1024;

const env = process.env;
const int = (name, fallback) => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value);
};
export const S = {
  largeMb: int('BENCH_LARGE_MB', 1024),
  mediumMb: int('BENCH_MEDIUM_MB', 64),
  hugeMb: int('BENCH_HUGE_MB', 0), // 4096 to include a 4 GiB file; 0 = skipped
  largeRuns: int('BENCH_LARGE_RUNS', 3),
  tusChunkMb: int('BENCH_TUS_CHUNK_MB', 50),
  smallKb: int('BENCH_SMALL_KB', 4),
  smallCount: int('BENCH_SMALL_COUNT', 1500),
  smallDownloads: int('BENCH_SMALL_DOWNLOADS', 4000),
  smallRuns: int('BENCH_SMALL_RUNS', 3),
  smallPages: int('BENCH_SMALL_PAGES', 2000),
  concurrency: int('BENCH_CONCURRENCY', 32),
  listFiles: int('BENCH_LIST_FILES', 10000),
  listRequests: int('BENCH_LIST_REQUESTS', 60),
  logins: int('BENCH_LOGINS', 20),
  // "Download all": a collection of collectionFiles files and collectionMb MiB in all (its
  // baseline: one file of collectionMb), and a larger one of bigCollectionFiles files and
  // bigCollectionMb made of the first one's files and more (its memory and its page).
  collectionMb: int('BENCH_COLLECTION_MB', 1024),
  collectionFiles: int('BENCH_COLLECTION_FILES', 100),
  bigCollectionMb: int('BENCH_BIG_COLLECTION_MB', 2048),
  bigCollectionFiles: int('BENCH_BIG_COLLECTION_FILES', 1000),
  ttfbRequests: int('BENCH_TTFB_REQUESTS', 40),
  thumbnails: int('BENCH_THUMBNAILS', 50),
  searchFiles: int('BENCH_SEARCH_FILES', 100000),
  searchRequests: int('BENCH_SEARCH_REQUESTS', 60),
  filelistFiles: int('BENCH_FILELIST_FILES', 10000),
  filelistRequests: int('BENCH_FILELIST_REQUESTS', 40),
  adminUsers: int('BENCH_ADMIN_USERS', 10000),
  adminUsersRequests: int('BENCH_ADMIN_USERS_REQUESTS', 20),
  logLevel: env.BENCH_LOG_LEVEL || 'info',
  cpuProfDir: env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : null,
  only: env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((s) => s.trim())) : null,
  skipBuild: env.BENCH_SKIP_BUILD === '1',
  // A folder to copy the children's logs into before the run's temporary folder goes (e.g. the
  // service's --trace-gc output with BENCH_SERVICE_NODE_FLAGS).
  keepLogsDir: env.BENCH_KEEP_LOGS ? path.resolve(env.BENCH_KEEP_LOGS) : null,
  serverNodeFlags: SERVER_NODE_FLAGS,
  serverEnv: SERVER_ENV,
  // Extra node flags for the service only, for experiments (e.g. "--max-semi-space-size=4").
  // The server's own flags (SERVER_NODE_FLAGS) come first; these can override them.
  serviceNodeFlags: (env.BENCH_SERVICE_NODE_FLAGS || '').split(/\s+/).filter(Boolean),
  // Extra environment for the service only, for experiments (e.g. "UV_THREADPOOL_SIZE=2").
  serviceEnv: Object.fromEntries(
    (env.BENCH_SERVICE_ENV || '')
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split(/=(.*)/s, 2)),
  ),
};
export const wants = (phase) => !S.only || S.only.has(phase);
/** The phases measured on the embedded backend (SQLite + disk); `s3` has its own service. */
export const DISK_PHASES = [
  'login',
  'large',
  'tus',
  'collections',
  'small',
  'list',
  'thumbnails',
  'search',
  'filelist',
  'adminusers',
];
/** The phases that seed a user of their own (registered before the service starts). */
export const SEEDED_USERS = { search: 'bench-search', filelist: 'bench-files', adminusers: 'bench-admin' };
export const PASSWORD = 'bench-password-0123456789';
export const SECRET = randomBytes(32).toString('hex');
