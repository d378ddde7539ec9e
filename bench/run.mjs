// npm run bench — the service against bare Node baselines, in the same run, on 127.0.0.1.
// Builds when the sources are newer than dist/, starts the built service and the bare servers
// as child processes, generates its data in a temp dir, measures, prints a table and one
// JSON line, and always removes its temp dir and stops its processes (also on failure).
// Sizes and counts come from BENCH_* variables: see docs/performance.md.
// Phases (BENCH_ONLY): login, large, small, list — the service on SQLite + disk against bare
// Node servers; tus — its resumable uploads against its own multipart upload of the same file;
// collections — "Download all" (/c/<id>/archive) against its own raw download of one file of
// the same size, its memory while streaming a 1,000-file archive, and the time to first byte
// of a 1,000-file collection against a single file's share page;
// s3 — the service on PostgreSQL + S3 (a throwaway cluster and s3rver, started here) against
// the AWS SDK alone on the same S3 server for a large file (and a bare Node proxy in between,
// the floor of any process there), and against the bare Node servers for small files (the
// `pg+s3` lines);
// thumbnails — BENCH_THUMBNAILS images of 12 MP uploaded, thumbnails made per second and the
// service's peak RSS meanwhile; search — GET /api/v1/files?q= on a user of BENCH_SEARCH_FILES
// files (rows put straight into SQLite), a word in ~1 % of the names and one in none;
// filelist — time to first byte of "My files" (GET /files, and ?view=gallery) with
// BENCH_FILELIST_FILES files; metrics — 4 KiB raw downloads of two services side by side, one
// with Prometheus metrics on (METRICS_TOKEN) and one without.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomFillSync } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import {
  download,
  fetchText,
  requestJson,
  runConcurrent,
  timeToFirstByte,
  tusUploadFromDisk,
  uploadBuffer,
  uploadFromDisk,
  HOST,
} from './client.mjs';
import { postgresBin, startPostgres } from './postgres-cluster.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------- settings
const env = process.env;
const int = (name, fallback) => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number, got "${value}"`);
  return Number(value);
};
const S = {
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
const wants = (phase) => !S.only || S.only.has(phase);
/** The phases measured on the embedded backend (SQLite + disk); `s3` has its own service. */
const DISK_PHASES = ['login', 'large', 'tus', 'collections', 'small', 'list', 'thumbnails', 'search', 'filelist'];
/** The phases that seed a user of their own (registered before the service starts). */
const SEEDED_USERS = { search: 'bench-search', filelist: 'bench-files' };
const PASSWORD = 'bench-password-0123456789';
const SECRET = randomBytes(32).toString('hex');

// ---------------------------------------------------------------------------- processes and cleanup
const children = new Set();
let tmp = null;
/** Synchronous stops of what is not our child process (the PostgreSQL cluster daemonizes). */
const stoppers = new Set();

function runStoppers() {
  for (const stop of stoppers) {
    stoppers.delete(stop);
    try {
      stop();
    } catch (error) {
      process.stderr.write(`bench: cleanup: ${error?.message ?? error}\n`);
    }
  }
}

function spawnChild(name, command, args, { env: childEnv = {}, logDir, handshake = false }) {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...childEnv },
    // The service logs straight into its file; the bare servers print their port first.
    stdio: ['ignore', handshake ? 'pipe' : out, out],
  });
  fs.closeSync(out);
  const entry = { name, child, logFile, exited: false };
  children.add(entry);
  child.on('exit', () => {
    entry.exited = true;
  });
  // Everything the child prints goes to its log; the first line is kept for the port handshake.
  const firstLine = new Promise((resolve, reject) => {
    if (!handshake) return resolve('');
    let buffer = '';
    const log = fs.createWriteStream(logFile, { flags: 'a' });
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      if (buffer !== null) {
        buffer += chunk.toString('utf8');
        const newline = buffer.indexOf('\n');
        if (newline >= 0) {
          resolve(buffer.slice(0, newline));
          buffer = null;
        }
      }
    });
    child.stdout.on('end', () => log.end());
    child.on('exit', (code) => reject(new Error(`${name} exited with code ${code} (log: ${tail(logFile)})`)));
  });
  firstLine.catch(() => undefined);
  return { ...entry, entry, firstLine };
}

async function stopChild(entry, timeoutMs = 15_000) {
  if (entry.exited) return;
  entry.child.kill('SIGTERM');
  const exited = new Promise((resolve) => entry.child.once('exit', resolve));
  const timer = new Promise((resolve) => setTimeout(resolve, timeoutMs, 'timeout'));
  if ((await Promise.race([exited, timer])) === 'timeout' && !entry.exited) {
    entry.child.kill('SIGKILL');
    await exited;
  }
  children.delete(entry);
}

async function cleanup() {
  await Promise.all([...children].map((entry) => stopChild(entry, 5_000)));
  runStoppers();
  if (tmp) {
    if (S.keepLogsDir) fs.cpSync(path.join(tmp, 'logs'), S.keepLogsDir, { recursive: true });
    fs.rmSync(tmp, { recursive: true, force: true });
    tmp = null;
  }
}

// Last resort on an abrupt exit: nothing asynchronous runs here.
process.on('exit', () => {
  for (const { child, exited } of children) if (!exited) child.kill('SIGKILL');
  runStoppers();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
    cleanup().finally(() => process.exit(130));
  });
}

function tail(file, lines = 15) {
  try {
    return `\n${fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`;
  } catch {
    return '(no log)';
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------- RSS and CPU sampling
let clockTicks = 100;
try {
  clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  /* Linux default */
}

/** CPU seconds (user, system) a process has used so far, from /proc/<pid>/stat. */
function cpuTimes(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / clockTicks, sys: Number(fields[12]) / clockTicks };
}

/**
 * One process during a phase: peak RSS (VmHWM after resetting it with clear_refs 5, and
 * VmRSS polled every 20 ms) and the CPU time it used (robust when the machine is busy).
 */
class RssMonitor {
  constructor(pid) {
    this.pid = pid;
  }
  status() {
    const text = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  }
  start() {
    try {
      fs.writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.hwmReset = true;
    } catch {
      this.hwmReset = false;
    }
    const { rss } = this.status();
    this.before = rss;
    this.cpuBefore = cpuTimes(this.pid);
    this.polledPeak = rss;
    this.timer = setInterval(() => {
      try {
        this.polledPeak = Math.max(this.polledPeak, this.status().rss);
      } catch {
        /* process gone: the phase will fail on its own */
      }
    }, 20);
    // A phase that fails half-way must not keep the bench alive.
    this.timer.unref();
    return this;
  }
  stop() {
    clearInterval(this.timer);
    const { rss, hwm } = this.status();
    const peak = this.hwmReset ? Math.max(hwm, this.polledPeak) : this.polledPeak;
    const cpu = cpuTimes(this.pid);
    const [userS, sysS] = [cpu.user - this.cpuBefore.user, cpu.sys - this.cpuBefore.sys];
    return {
      beforeMb: round(this.before),
      peakMb: round(peak),
      afterMb: round(rss),
      hwmReset: this.hwmReset,
      cpuS: round(userS + sysS, 2),
      userS: round(userS, 2),
      sysS: round(sysS, 2),
    };
  }
}

// ---------------------------------------------------------------------------- helpers
const round = (x, digits = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);
const median = (xs) => percentile(xs, 0.5);
function percentile(xs, q) {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
const best = (xs) => Math.max(...xs);
const log = (message) => process.stderr.write(`bench: ${message}\n`);
function assert(condition, message) {
  if (!condition) throw new Error(message);
}
const sizeLabel = (mb) => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GiB` : `${mb} MiB`);

function newestMtime(target) {
  let newest = 0;
  const stack = [target];
  while (stack.length) {
    const current = stack.pop();
    let stats;
    try {
      stats = fs.statSync(current);
    } catch {
      continue;
    }
    if (stats.isDirectory()) {
      for (const name of fs.readdirSync(current)) if (name !== 'node_modules') stack.push(path.join(current, name));
    } else newest = Math.max(newest, stats.mtimeMs);
  }
  return newest;
}

function buildIfNeeded() {
  const outputs = ['dist/server/index.js', 'dist/cli/register-user.js', 'build/index.js'].map((p) =>
    path.join(ROOT, p),
  );
  const oldestOutput = Math.min(...outputs.map((p) => (fs.existsSync(p) ? fs.statSync(p).mtimeMs : 0)));
  const newestSource = Math.max(
    ...['server', 'app', 'cli', 'remix.config.js', 'package.json', 'scripts/build-server.mjs'].map((p) =>
      newestMtime(path.join(ROOT, p)),
    ),
  );
  if (oldestOutput >= newestSource) return false;
  if (S.skipBuild) {
    log('sources are newer than dist/ but BENCH_SKIP_BUILD=1: measuring the existing build');
    return false;
  }
  log('building (npm run build)…');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', process.stderr, process.stderr] });
  if (result.status !== 0) throw new Error('npm run build failed');
  return true;
}

/** A file of random bytes, written in 1 MiB chunks (never held in memory). */
function makeRandomFile(file, bytes) {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.allocUnsafe(Math.min(MiB, Math.max(bytes, 1)));
  try {
    for (let written = 0; written < bytes; ) {
      const n = Math.min(chunk.length, bytes - written);
      randomFillSync(chunk, 0, n);
      fs.writeSync(fd, chunk, 0, n);
      written += n;
    }
    // On disk before any measure: its writeback must not land in the middle of one.
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The input of a large-file measure, generated once per size and shared by the phases. */
function largeInput(inputDir, mb) {
  const input = path.join(inputDir, `large-${mb}.bin`);
  if (!fs.existsSync(input)) {
    log(`${sizeLabel(mb)}: generating the input file`);
    makeRandomFile(input, mb * MiB);
  }
  return input;
}

/** The contenders of a run take turns going first (a busy machine favours no one in particular). */
const rotate = (list, run) => list.map((_, i) => list[(i + run) % list.length]);

// ---------------------------------------------------------------------------- the run
const results = { settings: { ...S, only: S.only ? [...S.only] : null }, machine: {}, measures: [] };
const rows = [];
/** One line of the table (and of the JSON). ratio = service ÷ baseline. */
function record(row) {
  const ratio = row.service !== undefined && row.baseline ? row.service / row.baseline : undefined;
  const full = { ...row, ratio: ratio === undefined ? undefined : round(ratio, 3) };
  if (row.check) full.pass = row.check(row.service, ratio);
  delete full.check;
  rows.push(full);
  results.measures.push(full);
}

async function main() {
  results.machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memTotalMb: Math.round(os.totalmem() / MiB),
    node: process.version,
    loadavgAtStart: os.loadavg().map((x) => round(x, 2)),
    startedAt: new Date().toISOString(),
  };
  results.rebuilt = buildIfNeeded();

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-bench-'));
  const inputDir = path.join(tmp, 'input');
  const logDir = path.join(tmp, 'logs');
  for (const dir of [inputDir, logDir]) fs.mkdirSync(dir, { recursive: true });

  if (DISK_PHASES.some(wants)) await measureOnDisk({ inputDir, logDir });
  if (wants('pg')) await measureOnPostgresDisk({ logDir });
  if (wants('s3')) await measureOnPostgresS3({ inputDir, logDir });
  if (wants('metrics')) await measureMetricsCost({ logDir });

  results.machine.loadavgAtEnd = os.loadavg().map((x) => round(x, 2));
  if (S.cpuProfDir) log(`CPU profile written to ${S.cpuProfDir}`);
  printReport();
}

/** The login, large, tus, small and list phases: the service on SQLite + disk against the bare servers. */
async function measureOnDisk({ inputDir, logDir }) {
  const dataDir = path.join(tmp, 'data');
  const uploadDir = path.join(dataDir, 'uploads');
  const bareDir = path.join(tmp, 'bare-uploads');
  for (const dir of [dataDir, bareDir]) fs.mkdirSync(dir, { recursive: true });

  const largeSizes = [S.mediumMb, S.largeMb, S.hugeMb].filter((mb) => mb > 0);
  const port = await freePort();
  const serviceEnv = serviceEnvFor({ port, dataDir, maxMb: Math.max(...largeSizes, S.collectionMb, 1) });

  registerBenchUser(serviceEnv);
  for (const [phase, username] of Object.entries(SEEDED_USERS))
    if (wants(phase)) registerBenchUser(serviceEnv, username);
  const service = startService('service', serviceEnv, logDir);
  // The bare download server reads the service's own upload dir: the very same files.
  const startBare = (nameSuffix = '') =>
    startBareServers({ logDir, uploadDir: bareDir, downloadDir: uploadDir, nameSuffix });
  let [bare] = await Promise.all([startBare(), waitForHealth(port, service.entry)]);
  const { bareUpPort, bareDownPort, bareUpRss, bareDownRss } = bare;
  log(
    `service pid ${service.child.pid} on ${HOST}:${port}; bare upload :${bareUpPort}, bare download :${bareDownPort}`,
  );

  let serviceRss = new RssMonitor(service.child.pid);
  results.serviceIdleRssMb = round(serviceRss.status().rss);

  // ---- login (also gives the cookie for the rest)
  const doLogin = () => loginRequest(port);
  const cookie = await logIn(port);

  if (wants('login')) await measureLogin(doLogin);
  /** The files the large phase stored, by size in MiB: the collections phase downloads one again. */
  const storedLarge = new Map();
  if (wants('large')) {
    for (const mb of largeSizes) {
      const stored = await measureLarge({
        mb,
        port,
        cookie,
        bareUpPort,
        bareDownPort,
        inputDir,
        bareDir,
        serviceRss,
        bareUpRss,
        bareDownRss,
      });
      storedLarge.set(mb, stored);
    }
    // Constant memory: the peak must not grow with the file (smallest vs largest size measured).
    if (largeSizes.length > 1) {
      const [small, big] = [sizeLabel(largeSizes[0]), sizeLabel(largeSizes[largeSizes.length - 1])];
      for (const kind of ['upload', 'download']) {
        const peakOf = (label) => rows.find((row) => row.measure === `peak RSS ${kind} ${label} (MB)`).service;
        // An upload under ~64 MiB ends before the socket buffers waiting for a collection reach
        // their plateau: from such a size the difference says nothing, so it carries no target.
        const comparable = largeSizes[0] >= 64;
        record({
          group: 'memory',
          measure: `peak RSS growth ${kind} ${small} → ${big} (MB)`,
          unit: 'MB',
          service: round(peakOf(big) - peakOf(small)),
          ...(comparable
            ? { target: '< 16 MB', check: (s) => s < 16 }
            : { note: 'informational: the smaller size is under 64 MiB' }),
        });
      }
    }
  }
  // Before the small files, whose 32 clients leave the service's RSS higher for good.
  if (wants('tus')) await measureTus({ port, cookie, inputDir, uploadDir, serviceRss });

  // The small files and the list are measured on a service started again on the same data, as
  // the pg phase's is new: their RSS lines are about what the burst of small requests leaves,
  // not what the 1 GiB transfers before it left in glibc's heap (~20 MB of freed 64 KiB socket
  // buffers that glibc keeps; docs/performance.md, "Small files"). The cookie stays
  // valid: its session is in the database. The bare servers start again too, as in the pg phase:
  // kept after the 1 GiB transfers, the bare download server never passed 5,580 4 KiB downloads
  // a second (0.15-0.18 ms of CPU each) in six full runs, where new ones reach 5,000-9,200/s:
  // a handicap of the baseline alone.
  let current = service;
  // "Download all" is measured on a service started again once its files are uploaded, for the
  // same reason as the small files below: its peak and its RSS at rest are about the archive, not
  // about what the uploads (3 GiB in 1,000 files, and the 1 GiB transfers before) left behind.
  if (wants('collections')) {
    const restart = async () => {
      results.serviceRssBeforeCollectionsRestartMb = round(serviceRss.status().rss);
      await stopChild(current.entry);
      current = startService('service-collections', serviceEnv, logDir);
      await waitForHealth(port, current.entry);
      serviceRss = new RssMonitor(current.child.pid);
      log(`collections: service restarted after the uploads: pid ${current.child.pid}`);
      return serviceRss;
    };
    await measureCollections({ port, cookie, inputDir, serviceRss, restart, single: storedLarge.get(S.collectionMb) });
  }
  if (wants('small') || wants('list')) {
    if (wants('large') || wants('tus') || wants('collections')) {
      results.serviceRssBeforeRestartMb = round(serviceRss.status().rss);
      await Promise.all([stopChild(current.entry), bare.stop()]);
      current = startService('service-small', serviceEnv, logDir);
      [bare] = await Promise.all([startBare('-small'), waitForHealth(port, current.entry)]);
      serviceRss = new RssMonitor(current.child.pid);
      log(`service and bare servers restarted for the small files: service pid ${current.child.pid}`);
    }
    results.serviceSmallIdleRssMb = round(serviceRss.status().rss);
  }
  if (wants('small')) await measureSmall({ port, cookie, bare, serviceRss });
  if (wants('list')) await measureList({ port, cookie, dataDir, serviceRss });
  if (wants('thumbnails')) {
    // On a service started again when other phases ran: its peak is about the thumbnails.
    if (['large', 'tus', 'collections', 'small', 'list'].some(wants)) {
      await stopChild(current.entry);
      current = startService('service-thumbnails', serviceEnv, logDir);
      await waitForHealth(port, current.entry);
      serviceRss = new RssMonitor(current.child.pid);
      log(`thumbnails: service restarted: pid ${current.child.pid}`);
    }
    await measureThumbnails({ port, cookie, inputDir, serviceRss });
  }
  if (wants('search')) await measureSearch({ port, dataDir });
  if (wants('filelist')) await measureFileList({ port, dataDir });

  results.serviceFinalRssMb = round(serviceRss.status().rss);
  // Stopped before any later phase: idle processes are still processes on a 2-core machine.
  await Promise.all([stopChild(current.entry), bare.stop()]);
}

/**
 * The two baselines, each a child process: busboy → disk into `uploadDir` (fsync per request
 * with ?fsync=1) and stat + createReadStream from `downloadDir`. Resolves once both listen.
 */
async function startBareServers({ logDir, uploadDir, downloadDir, nameSuffix = '' }) {
  const bareUp = spawnChild(`bare-upload${nameSuffix}`, process.execPath, ['bench/bare-upload-server.mjs', uploadDir], {
    logDir,
    handshake: true,
  });
  const bareDown = spawnChild(
    `bare-download${nameSuffix}`,
    process.execPath,
    ['bench/bare-download-server.mjs', downloadDir],
    { logDir, handshake: true },
  );
  const [bareUpPort, bareDownPort] = await Promise.all([handshakePort(bareUp), handshakePort(bareDown)]);
  return {
    bareUpPort,
    bareDownPort,
    bareUpRss: new RssMonitor(bareUp.child.pid),
    bareDownRss: new RssMonitor(bareDown.child.pid),
    stop: () => Promise.all([bareUp.entry, bareDown.entry].map((entry) => stopChild(entry))),
  };
}

/** The service's environment; `extra` adds or overrides (the PostgreSQL + S3 settings). */
function serviceEnvFor({ port, dataDir, maxMb, extra = {} }) {
  return {
    PORT: String(port),
    HOST,
    BASE_URL: `http://${HOST}:${port}`,
    DATA_DIR: dataDir,
    SESSION_SECRET: SECRET,
    MAX_UPLOAD_BYTES: String(maxMb * MiB + 16 * MiB),
    LOG_LEVEL: S.logLevel,
    NODE_ENV: 'production',
    ...extra,
  };
}

/** A user, through the CLI as an operator would, in the database `serviceEnv` points at. */
function registerBenchUser(serviceEnv, username = 'bench') {
  log(`registering the user ${username}`);
  execFileSync(process.execPath, ['dist/cli/register-user.js', username, '--password-stdin'], {
    cwd: ROOT,
    env: { ...process.env, ...serviceEnv },
    input: `${PASSWORD}\n`,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}

/** The built service as in production (its node flags and environment), plus the bench's profiling flags. */
function startService(name, serviceEnv, logDir) {
  const nodeFlags = [
    ...SERVER_NODE_FLAGS,
    ...(S.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${S.cpuProfDir}`] : []),
    ...S.serviceNodeFlags,
  ];
  return spawnChild(name, process.execPath, [...nodeFlags, 'dist/server/index.js'], {
    env: { ...SERVER_ENV, ...serviceEnv, ...S.serviceEnv },
    logDir,
  });
}

/** The port a helper server prints as its first line ({"port":N}). */
const handshakePort = async (proc) => JSON.parse(await proc.firstLine).port;

const loginRequest = (port, username = 'bench') =>
  requestJson({ port, path: '/api/v1/auth/login', method: 'POST', json: { username, password: PASSWORD } });

/** Logs the bench user (or another) in; resolves with the `token=…` cookie. */
async function logIn(port, username = 'bench') {
  const res = await loginRequest(port, username);
  assert(res.status === 200, `login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = [res.headers['set-cookie']]
    .flat()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('token='));
  assert(cookie, 'no token cookie after login');
  return cookie;
}

async function waitForHealth(port, entry) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (entry.exited) throw new Error(`the service exited during start: ${tail(entry.logFile)}`);
    try {
      const res = await requestJson({ port, path: '/healthz' });
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service did not become healthy: ${tail(entry.logFile)}`);
}

// ---------------------------------------------------------------------------- login
async function measureLogin(doLogin) {
  log(`login: ${S.logins} sequential logins`);
  const bcrypt = require('bcryptjs');
  const hash = bcrypt.hashSync(PASSWORD, 10);
  await doLogin();
  const service = [];
  for (let i = 0; i < S.logins; i++) {
    const res = await doLogin();
    assert(res.status === 200, `login ${res.status}`);
    service.push(res.ms);
  }
  const bare = [];
  for (let i = 0; i < S.logins; i++) {
    const t0 = process.hrtime.bigint();
    assert(await bcrypt.compare(PASSWORD, hash), 'bcrypt compare');
    bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const note = 'baseline: bcryptjs.compare (cost 10) alone, in the bench process';
  record({
    group: 'login',
    measure: 'login p50 (ms)',
    unit: 'ms',
    service: round(median(service)),
    baseline: round(median(bare)),
    note,
    samples: service.map((x) => round(x)),
  });
  record({
    group: 'login',
    measure: 'login p99 (ms)',
    unit: 'ms',
    service: round(percentile(service, 0.99)),
    baseline: round(percentile(bare, 0.99)),
    note,
  });
}

// ---------------------------------------------------------------------------- large files
async function measureLarge({
  mb,
  port,
  cookie,
  bareUpPort,
  bareDownPort,
  inputDir,
  bareDir,
  serviceRss,
  bareUpRss,
  bareDownRss,
}) {
  const bytes = mb * MiB;
  const label = sizeLabel(mb);
  const runs = mb > S.largeMb ? 1 : S.largeRuns;
  const input = largeInput(inputDir, mb);
  const mibPerS = (ms) => bytes / MiB / (ms / 1000);

  const up = { service: [], bareFsync: [], bareNoFsync: [], serviceRss: [], bareFsyncRss: [], bareNoFsyncRss: [] };
  let stored = null;
  const uploadTo = {
    service: async () => {
      // The real REST upload: busboy → PassThrough → byte counter → temp file, fsync, rename, row.
      serviceRss.start();
      const res = await uploadFromDisk({
        port,
        path: '/api/v1/files',
        file: input,
        filename: `large-${mb}.bin`,
        cookie,
      });
      up.serviceRss.push(serviceRss.stop());
      assert(res.status === 201, `service upload ${res.status}: ${JSON.stringify(res.body)}`);
      assert(res.body.file.size === bytes, `service stored ${res.body.file.size} bytes, expected ${bytes}`);
      up.service.push(mibPerS(res.ms));
      // Durable copies stay until the end: deleting a GiB on this ext4 (mounted with `discard`)
      // trims its blocks in the background and slows down the next run's fsync.
      stored = res.body.file;
    },
    // Bare busboy → disk, with and without the fsync the service does.
    bareFsync: () => uploadToBare('bareFsync', '?fsync=1'),
    bareNoFsync: () => uploadToBare('bareNoFsync', ''),
  };
  async function uploadToBare(key, query) {
    bareUpRss.start();
    const bare = await uploadFromDisk({
      port: bareUpPort,
      path: `/${query}`,
      file: input,
      filename: `large-${mb}.bin`,
    });
    up[`${key}Rss`].push(bareUpRss.stop());
    assert(bare.status === 201 && bare.body.size === bytes, `bare upload ${bare.status}: ${JSON.stringify(bare.body)}`);
    up[key].push(mibPerS(bare.ms));
    // Not synced: removing it at once drops its dirty pages before the kernel writes them out.
    if (key === 'bareNoFsync') fs.rmSync(path.join(bareDir, bare.body.name), { force: true });
  }
  for (let run = 1; run <= runs; run++) {
    log(`${label}: upload run ${run}/${runs}`);
    for (const who of rotate(['service', 'bareFsync', 'bareNoFsync'], run - 1)) await uploadTo[who]();
  }

  const down = { service: [], bare: [], bareTuned: [], serviceRss: [], bareRss: [], bareTunedRss: [] };
  const downloadFrom = {
    service: async () => {
      serviceRss.start();
      const res = await download({ port, path: `/f/${stored.id}/raw` });
      down.serviceRss.push(serviceRss.stop());
      assert(res.status === 200 && res.bytes === bytes, `service download ${res.status}, ${res.bytes} bytes`);
      down.service.push(mibPerS(res.ms));
    },
    // The same stored file, by the bare server: default 64 KiB chunks, then 1 MiB chunks.
    bare: () => downloadFromBare('bare', `/${stored.storedName}`),
    bareTuned: () => downloadFromBare('bareTuned', `/${stored.storedName}?hwm=${MiB}`),
  };
  async function downloadFromBare(key, urlPath) {
    bareDownRss.start();
    const res = await download({ port: bareDownPort, path: urlPath });
    down[`${key}Rss`].push(bareDownRss.stop());
    assert(res.status === 200 && res.bytes === bytes, `bare download ${res.status}, ${res.bytes} bytes`);
    down[key].push(mibPerS(res.ms));
  }
  for (let run = 1; run <= runs; run++) {
    log(`${label}: download run ${run}/${runs}`);
    for (const who of rotate(['service', 'bare', 'bareTuned'], run - 1)) await downloadFrom[who]();
  }

  const r = (xs) => xs.map((x) => round(x));
  const group = `large ${label}`;
  const isTarget = mb === S.largeMb;
  record({
    group,
    measure: `upload ${label} (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(up.service)),
    baseline: round(best(up.bareFsync)),
    target: isTarget ? '≥ 0.90' : undefined,
    check: isTarget ? (_s, ratio) => ratio >= 0.9 : undefined,
    note: 'baseline: bare busboy → fs.createWriteStream({flush:true}) (fsync, as the service)',
    samples: { service: r(up.service), baseline: r(up.bareFsync) },
  });
  record({
    group,
    measure: `upload ${label} vs no-fsync bare`,
    unit: 'MiB/s',
    service: round(best(up.service)),
    baseline: round(best(up.bareNoFsync)),
    target: isTarget ? '≥ 0.75' : undefined,
    check: isTarget ? (_s, ratio) => ratio >= 0.75 : undefined,
    note: 'baseline: bare busboy → disk without fsync (the cost of durability)',
    samples: { baseline: r(up.bareNoFsync) },
  });
  record({
    group,
    measure: `download ${label} (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(down.service)),
    baseline: round(best(down.bare)),
    target: isTarget ? '≥ 0.90' : undefined,
    check: isTarget ? (_s, ratio) => ratio >= 0.9 : undefined,
    note: 'baseline: bare fs.createReadStream(file).pipe(res), default 64 KiB chunks',
    samples: { service: r(down.service), baseline: r(down.bare) },
  });
  record({
    group,
    measure: `download ${label} vs 1 MiB-chunk bare`,
    unit: 'MiB/s',
    service: round(best(down.service)),
    baseline: round(best(down.bareTuned)),
    note: 'baseline: bare createReadStream({highWaterMark: 1 MiB}).pipe(res) (the ceiling of a Node stream)',
    samples: { baseline: r(down.bareTuned) },
  });
  // CPU seconds per GiB moved (least of the runs): what the code costs, whatever the machine's load.
  const cpuPerGiB = (xs) => round(Math.min(...xs.map((x) => x.cpuS)) / (bytes / (1024 * MiB)), 2);
  // A large upload may cost at most a quarter more CPU than the bare server; a 64 MiB one, whose
  // request, row and fsync weigh more per byte, two fifths.
  const uploadCpuRatio = isTarget ? 1.25 : mb === 64 ? 1.4 : undefined;
  record({
    group,
    measure: `CPU s/GiB upload ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(up.serviceRss),
    baseline: cpuPerGiB(up.bareFsyncRss),
    target: uploadCpuRatio ? `≤ ${uploadCpuRatio.toFixed(2)}` : undefined,
    check: uploadCpuRatio ? (_s, ratio) => ratio <= uploadCpuRatio : undefined,
    note: 'user+system CPU of the server process (/proc/<pid>/stat); baseline: bare upload with fsync; lower is better',
    samples: { bareNoFsync: cpuPerGiB(up.bareNoFsyncRss) },
  });
  record({
    group,
    measure: `CPU s/GiB download ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(down.serviceRss),
    baseline: cpuPerGiB(down.bareRss),
    note: 'baseline: bare 64 KiB-chunk download; lower is better',
    samples: { bareTuned: cpuPerGiB(down.bareTunedRss) },
  });
  const peak = (xs) => Math.max(...xs.map((x) => x.peakMb));
  record({
    group,
    measure: `peak RSS upload ${label} (MB)`,
    unit: 'MB',
    service: peak(up.serviceRss),
    baseline: peak(up.bareFsyncRss),
    target: '≤ 130 MB',
    check: (s) => s <= 130,
    note: 'VmHWM reset before each run; baseline: the bare upload server',
    detail: up.serviceRss,
  });
  record({
    group,
    measure: `peak RSS download ${label} (MB)`,
    unit: 'MB',
    service: peak(down.serviceRss),
    baseline: peak(down.bareRss),
    target: '< 150 MB',
    check: (s) => s < 150,
    note: 'baseline: the bare download server',
    detail: down.serviceRss,
  });
  return stored;
}

// ---------------------------------------------------------------------------- resumable uploads
// Resumable uploads: the same file over tus (/api/v1/uploads), in one PATCH and in BENCH_TUS_CHUNK_MB
// PATCHes, against the service's own multipart upload of it (POST /api/v1/files) in the same
// run: what the resumable path costs on top of the plain one.
async function measureTus({ port, cookie, inputDir, uploadDir, serviceRss }) {
  const mb = S.largeMb;
  const bytes = mb * MiB;
  const label = sizeLabel(mb);
  const chunkBytes = S.tusChunkMb * MiB;
  assert(chunkBytes > 0, 'BENCH_TUS_CHUNK_MB must be at least 1');
  const chunkLabel = `${S.tusChunkMb} MiB PATCHes`;
  const input = largeInput(inputDir, mb);
  const mibPerS = (ms) => bytes / MiB / (ms / 1000);

  const contenders = ['multipart', 'tusOne', 'tusChunked'];
  const rate = Object.fromEntries(contenders.map((who) => [who, []]));
  const rss = Object.fromEntries(contenders.map((who) => [who, []]));
  /** Per upload: times in ms (for tus the creation and the PATCHes), to see where the time goes. */
  const timings = { multipart: [], tusOne: [], tusChunked: [] };
  /** The stored file must be the whole input, by the answer and on disk: a broken upload cannot look fast. */
  const checkStored = (who, file) => {
    assert(file?.size === bytes, `${who}: the answer says ${file?.size} bytes stored, expected ${bytes}`);
    const onDisk = fs.statSync(path.join(uploadDir, file.storedName)).size;
    assert(onDisk === bytes, `${who}: ${onDisk} bytes on disk, expected ${bytes}`);
  };
  const upload = {
    multipart: async () => {
      serviceRss.start();
      const res = await uploadFromDisk({
        port,
        path: '/api/v1/files',
        file: input,
        filename: `tus-baseline-${mb}.bin`,
        cookie,
      });
      rss.multipart.push(serviceRss.stop());
      assert(res.status === 201, `multipart upload ${res.status}: ${JSON.stringify(res.body)}`);
      checkStored('multipart', res.body.file);
      rate.multipart.push(mibPerS(res.ms));
      timings.multipart.push({ totalMs: round(res.ms), waitMs: round(res.waitMs) });
    },
    tusOne: () => uploadOverTus('tusOne', Infinity),
    tusChunked: () => uploadOverTus('tusChunked', chunkBytes),
  };
  async function uploadOverTus(who, chunk) {
    serviceRss.start();
    const res = await tusUploadFromDisk({
      port,
      path: '/api/v1/uploads',
      file: input,
      filename: `${who}-${mb}.bin`,
      cookie,
      chunkBytes: chunk,
    });
    rss[who].push(serviceRss.stop());
    assert(
      !res.failedAt && res.status === 200,
      `${who}: ${res.failedAt ?? 'last PATCH'} answered ${res.status}: ${JSON.stringify(res.body)}`,
    );
    assert(
      res.uploadOffset === String(bytes),
      `${who}: Upload-Offset ${res.uploadOffset} at the end, expected ${bytes}`,
    );
    checkStored(who, res.body.file);
    rate[who].push(mibPerS(res.ms));
    timings[who].push({
      totalMs: round(res.ms),
      creationMs: round(res.creationMs),
      patches: res.patches,
      patchMsP50: round(median(res.patchMs)),
      patchMsMax: round(Math.max(...res.patchMs)),
      // A PATCH's wait from its last byte handed to the socket to its answer: p50, and summed.
      waitMsP50: round(median(res.waitMs)),
      waitMsTotal: round(res.waitMs.reduce((a, b) => a + b, 0)),
    });
  }
  // Files stay until the end, as in the large phase (deleting a GiB trims in the background).
  for (let run = 1; run <= S.largeRuns; run++) {
    log(`tus ${label}: upload run ${run}/${S.largeRuns}`);
    for (const who of rotate(contenders, run - 1)) await upload[who]();
  }

  const r = (xs) => xs.map((x) => round(x));
  const group = `tus ${label}`;
  const cpuPerGiB = (xs) => round(Math.min(...xs.map((x) => x.cpuS)) / (bytes / (1024 * MiB)), 2);
  const peak = (xs) => Math.max(...xs.map((x) => x.peakMb));
  const baselineNote =
    "baseline: the service's multipart upload (POST /api/v1/files) of the same file, in the same run";
  const kinds = [
    ['tusOne', 'one PATCH', 'creation (POST), then one PATCH of the whole file; time from the POST to the last answer'],
    [
      'tusChunked',
      chunkLabel,
      `creation, then PATCHes of ${S.tusChunkMb} MiB on one keep-alive connection, each answered before the next`,
    ],
  ];
  for (const [who, how, what] of kinds) {
    record({
      group,
      measure: `tus upload ${label}, ${how} (MiB/s)`,
      unit: 'MiB/s',
      service: round(best(rate[who])),
      baseline: round(best(rate.multipart)),
      target: '≥ 0.90',
      check: (_s, ratio) => ratio >= 0.9,
      note: `${what}; ${baselineNote}`,
      samples: { service: r(rate[who]), baseline: r(rate.multipart) },
      detail: { service: timings[who], baseline: timings.multipart },
    });
  }
  for (const [who, how] of kinds) {
    record({
      group,
      measure: `CPU s/GiB tus upload ${label}, ${how}`,
      unit: 's/GiB',
      service: cpuPerGiB(rss[who]),
      baseline: cpuPerGiB(rss.multipart),
      note: 'user+system CPU of the service (/proc/<pid>/stat), least of the runs; baseline: its multipart upload; lower is better',
      detail: { service: rss[who].map((x) => x.cpuS), baseline: rss.multipart.map((x) => x.cpuS) },
    });
  }
  record({
    group,
    measure: `peak RSS tus upload ${label} (MB)`,
    unit: 'MB',
    service: Math.max(peak(rss.tusOne), peak(rss.tusChunked)),
    baseline: peak(rss.multipart),
    target: '< 150 MB',
    check: (s) => s < 150,
    note: 'the higher of the two tus kinds, VmHWM reset before each upload; baseline: the multipart uploads',
    detail: { tusOne: rss.tusOne, tusChunked: rss.tusChunked, multipart: rss.multipart },
  });
}

// ---------------------------------------------------------------------------- collections
/** Uploads at once while a collection's files are put in place (set-up, not measured). */
const SET_UP_CLIENTS = 4;

/** `bytes` split into `count` whole sizes that differ by at most one byte and add up to it exactly. */
const splitBytes = (bytes, count) =>
  Array.from({ length: count }, (_, i) => Math.floor(((i + 1) * bytes) / count) - Math.floor((i * bytes) / count));

/**
 * Uploads one file per size through the API, each the next slice of `input` (generated random
 * bytes; from its start again where it runs out), SET_UP_CLIENTS at a time. Resolves with the
 * stored files in order.
 */
async function uploadSlices({ port, cookie, input, sizes, filename }) {
  const inputBytes = fs.statSync(input).size;
  let offset = 0;
  const slices = sizes.map((size) => {
    assert(size <= inputBytes, `a file of ${size} bytes cannot be cut from ${inputBytes}`);
    if (offset + size > inputBytes) offset = 0;
    offset += size;
    return [offset - size, offset];
  });
  const files = new Array(sizes.length);
  await runConcurrent(sizes.length, SET_UP_CLIENTS, async (i) => {
    const [start, end] = slices[i];
    const res = await uploadFromDisk({
      port,
      path: '/api/v1/files',
      file: input,
      start,
      end,
      filename: filename(i),
      cookie,
    });
    assert(res.status === 201, `upload of ${filename(i)}: ${res.status} ${JSON.stringify(res.body)}`);
    assert(
      res.body.file.size === end - start,
      `${filename(i)}: stored ${res.body.file.size} bytes, expected ${end - start}`,
    );
    files[i] = res.body.file;
  });
  return files;
}

/** POST /api/v1/collections of `entries` ({ file, path }); checks the answer counts them all. */
async function createCollection({ port, cookie, title, entries }) {
  const res = await requestJson({
    port,
    path: '/api/v1/collections',
    method: 'POST',
    cookie,
    json: { title, files: entries.map(({ file, path: entryPath }) => ({ id: file.id, path: entryPath })) },
  });
  assert(
    res.status === 201,
    `creating the collection "${title}": ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`,
  );
  const { collection } = res.body;
  const totalSize = entries.reduce((sum, { file }) => sum + file.size, 0);
  assert(
    collection.fileCount === entries.length && collection.totalSize === totalSize,
    `"${title}": ${collection.fileCount} files and ${collection.totalSize} bytes, expected ${entries.length} and ${totalSize}`,
  );
  return collection;
}

/**
 * "Download all" as a visitor (no cookie), read to its end and counted: it must be a 200 ZIP
 * whose byte count is its Content-Length and which holds more than the files' bytes (their
 * headers too). A cut or padded archive cannot look fast.
 */
async function downloadArchive(port, collection) {
  const res = await download({ port, path: `/c/${collection.id}/archive` });
  assert(res.status === 200, `GET /c/<id>/archive answered ${res.status}`);
  assert(res.headers['content-type'] === 'application/zip', `archive Content-Type ${res.headers['content-type']}`);
  const length = res.headers['content-length'];
  assert(
    length !== undefined && res.bytes === Number(length),
    `archive: ${res.bytes} bytes received, Content-Length ${length ?? '(none)'}`,
  );
  assert(res.bytes > collection.totalSize, `archive: ${res.bytes} bytes for ${collection.totalSize} bytes of files`);
  return res;
}

/**
 * Collections on the disk service: "Download all" of a BENCH_COLLECTION_MB collection of
 * BENCH_COLLECTION_FILES files against the service's own raw download of one file of that size
 * (the large phase's, or uploaded here), each taking its turn first, on the service `restart`
 * started again once the files are uploaded (it resolves with its RssMonitor); its peak RSS
 * while it streams a BENCH_BIG_COLLECTION_MB collection of BENCH_BIG_COLLECTION_FILES files
 * (the first collection's files and more), beside its RSS at rest just before; and the time to
 * first byte of that collection's page (or, until the page exists, of its API object for the
 * owner) against a single file's share page.
 */
async function measureCollections({ port, cookie, inputDir, serviceRss: uploadingRss, restart, single }) {
  assert(
    S.bigCollectionFiles > S.collectionFiles && S.bigCollectionMb > S.collectionMb,
    'BENCH_BIG_COLLECTION_FILES and BENCH_BIG_COLLECTION_MB must be larger than BENCH_COLLECTION_FILES and BENCH_COLLECTION_MB',
  );
  const bytes = S.collectionMb * MiB;
  const label = sizeLabel(S.collectionMb);
  const bigLabel = sizeLabel(S.bigCollectionMb);
  const [count, bigCount] = [S.collectionFiles, S.bigCollectionFiles];
  const input = largeInput(inputDir, S.collectionMb);
  if (!single) {
    log(`collections: uploading the ${label} file of the baseline`);
    const res = await uploadFromDisk({
      port,
      path: '/api/v1/files',
      file: input,
      filename: `single-${S.collectionMb}.bin`,
      cookie,
    });
    assert(res.status === 201 && res.body.file.size === bytes, `upload ${res.status}: ${JSON.stringify(res.body)}`);
    single = res.body.file;
  }

  // Set-up: the files, through the API as a person's client uploads them, then both collections.
  const setUpStarted = process.hrtime.bigint();
  log(`collections: uploading ${count} files, ${label} in all`);
  const files = await uploadSlices({
    port,
    cookie,
    input,
    sizes: splitBytes(bytes, count),
    filename: (i) => `part-${String(i).padStart(4, '0')}.bin`,
  });
  const extraMb = S.bigCollectionMb - S.collectionMb;
  const extraCount = bigCount - count;
  log(`collections: uploading ${extraCount} more files, ${sizeLabel(extraMb)} in all`);
  const more = await uploadSlices({
    port,
    cookie,
    // The same input at the defaults (1 GiB more, cut in 900 files).
    input: largeInput(inputDir, extraMb),
    sizes: splitBytes(extraMb * MiB, extraCount),
    filename: (i) => `photo-${String(i).padStart(4, '0')}.jpg`,
  });
  const entries = files.map((file) => ({ file, path: `set/${file.originalName}` }));
  const bigEntries = [
    ...entries,
    ...more.map((file, i) => ({
      file,
      path: `photos/${String(Math.floor(i / 100)).padStart(2, '0')}/${file.originalName}`,
    })),
  ];
  const collection = await createCollection({ port, cookie, title: `Bench ${count} files`, entries });
  const big = await createCollection({ port, cookie, title: `Bench ${bigCount} files`, entries: bigEntries });
  results.collectionsSetUpS = round(elapsedMs(setUpStarted) / 1000);
  results.serviceHwmBeforeCollectionsRestartMb = round(uploadingRss.status().hwm);
  const serviceRss = await restart();

  // ---- "Download all" against one file's raw download of the same size
  const mibPerS = (n, ms) => n / MiB / (ms / 1000);
  const rate = { archive: [], raw: [] };
  const rss = { archive: [], raw: [] };
  let archiveBytes = 0;
  const fetchFrom = {
    archive: async () => {
      serviceRss.start();
      const res = await downloadArchive(port, collection);
      rss.archive.push(serviceRss.stop());
      rate.archive.push(mibPerS(res.bytes, res.ms));
      archiveBytes = res.bytes;
    },
    raw: async () => {
      serviceRss.start();
      const res = await download({ port, path: `/f/${single.id}/raw` });
      rss.raw.push(serviceRss.stop());
      assert(res.status === 200 && res.bytes === bytes, `raw download ${res.status}, ${res.bytes} bytes`);
      rate.raw.push(mibPerS(res.bytes, res.ms));
    },
  };
  for (let run = 1; run <= S.largeRuns; run++) {
    log(`collections: Download all of ${count} files (${label}) and one ${label} file, run ${run}/${S.largeRuns}`);
    for (const who of rotate(['archive', 'raw'], run - 1)) await fetchFrom[who]();
  }

  // ---- the service's memory while it streams the larger archive, beside its RSS at rest
  log(`collections: the service idles ${IDLE_RSS_SECONDS} s before Download all of ${bigCount} files (${bigLabel})`);
  const rest = await idleRss(serviceRss);
  const bigRate = [];
  const bigRss = [];
  let bigArchiveBytes = 0;
  for (let run = 1; run <= S.largeRuns; run++) {
    log(`collections: Download all of ${bigCount} files (${bigLabel}), run ${run}/${S.largeRuns}`);
    serviceRss.start();
    const res = await downloadArchive(port, big);
    bigRss.push(serviceRss.stop());
    bigRate.push(mibPerS(res.bytes, res.ms));
    bigArchiveBytes = res.bytes;
  }

  // ---- time to first byte: the collection's page (its API object until the page exists)
  const page = await measureCollectionTtfb({ port, cookie, collection: big, file: files[0] });

  const r = (xs) => xs.map((x) => round(x));
  const group = 'collections';
  const cpuPerGiB = (xs, n) => round(Math.min(...xs.map((x) => x.cpuS)) / (n / (1024 * MiB)), 2);
  const peak = (xs) => Math.max(...xs.map((x) => x.peakMb));
  const rawNote = `baseline: GET /f/<id>/raw of one ${label} file, the same service, in the same runs`;
  record({
    group,
    measure: `Download all ${label}, ${count} files (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(rate.archive)),
    baseline: round(best(rate.raw)),
    target: '≥ 0.90',
    check: (_s, ratio) => ratio >= 0.9,
    note: `GET /c/<id>/archive as a visitor, ${archiveBytes} bytes received = its Content-Length; ${rawNote}`,
    samples: { service: r(rate.archive), baseline: r(rate.raw) },
  });
  record({
    group,
    measure: `CPU s/GiB Download all ${label}, ${count} files`,
    unit: 's/GiB',
    service: cpuPerGiB(rss.archive, archiveBytes),
    baseline: cpuPerGiB(rss.raw, bytes),
    note: `user+system CPU of the service, least of the runs; ${rawNote}; lower is better`,
    detail: { service: rss.archive.map((x) => x.cpuS), baseline: rss.raw.map((x) => x.cpuS) },
  });
  record({
    group,
    measure: `peak RSS Download all ${label}, ${count} files (MB)`,
    unit: 'MB',
    service: peak(rss.archive),
    baseline: peak(rss.raw),
    note: `VmHWM reset before each run; ${rawNote}; informational`,
    detail: { service: rss.archive, baseline: rss.raw },
  });
  record({
    group,
    measure: `peak RSS Download all ${bigLabel}, ${bigCount} files (MB)`,
    unit: 'MB',
    service: peak(bigRss),
    baseline: rest.lowestMb,
    target: '< 150 MB',
    check: (s) => s < 150,
    note: `VmHWM reset before each run; baseline: the service's VmRSS at rest just before (the lowest of ${IDLE_RSS_SECONDS} readings, 1 s apart)`,
    detail: { service: bigRss, baseline: rest.readingsMb },
  });
  record({
    group,
    measure: `Download all ${bigLabel}, ${bigCount} files (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(bigRate)),
    baseline: round(best(rate.raw)),
    note: `${bigArchiveBytes} bytes received = its Content-Length; ${rawNote}; informational`,
    samples: { service: r(bigRate) },
  });
  for (const line of page) record({ group, ...line });
}

/**
 * Time to first byte, one request at a time on a new connection each (a first visit), of the
 * collection's page `GET /c/<id>` as a visitor, against a single file's share page `/f/<id>`,
 * the two taking turns. Until the collection page exists (a 404 or no HTML), the collection is
 * timed through `GET /api/v1/collections/<id>` as its owner, and the lines say so. Resolves with
 * the lines (informational: no target).
 */
async function measureCollectionTtfb({ port, cookie, collection, file }) {
  const count = collection.fileCount;
  const pagePath = `/c/${collection.id}`;
  const probe = await timeToFirstByte({ port, path: pagePath });
  const isPage = probe.status === 200 && /^text\/html/.test(probe.headers['content-type'] ?? '');
  results.collectionTtfbOf = isPage ? 'page' : 'api';
  const subject = isPage
    ? { path: pagePath, cookie: undefined, name: 'collection page GET /c/<id>' }
    : { path: `/api/v1/collections/${collection.id}`, cookie, name: 'GET /api/v1/collections/<id> (owner)' };
  if (!isPage) log(`collections: GET /c/<id> answered ${probe.status}: timing GET /api/v1/collections/<id> instead`);
  const checks = {
    collection: (res) => {
      assert(res.status === 200, `${subject.name}: ${res.status} ${res.text.slice(0, 300)}`);
      if (isPage) assert(res.text.includes(collection.title), `the collection page does not show its title`);
      else
        assert(
          JSON.parse(res.text).collection.files.length === count,
          `${subject.name} does not list the ${count} files`,
        );
    },
    file: (res) => {
      assert(res.status === 200, `share page ${res.status}: ${res.text.slice(0, 300)}`);
      assert(res.text.includes(file.originalName), `the share page does not name the file (${file.originalName})`);
    },
  };
  const fetchOf = {
    collection: () => timeToFirstByte({ port, path: subject.path, cookie: subject.cookie }),
    file: () => timeToFirstByte({ port, path: `/f/${file.id}` }),
  };
  const ttfb = { collection: [], file: [] };
  const total = { collection: [], file: [] };
  const bodyBytes = { collection: 0, file: 0 };
  log(`collections: time to first byte, ${S.ttfbRequests} × ${subject.name} (${count} files) and GET /f/<id>`);
  for (let i = -3; i < S.ttfbRequests; i++) {
    for (const who of rotate(['collection', 'file'], Math.max(i, 0))) {
      const res = await fetchOf[who]();
      checks[who](res);
      // The first three of each warm the routes up and are not counted.
      if (i < 0) continue;
      ttfb[who].push(res.ttfbMs);
      total[who].push(res.ms);
      bodyBytes[who] = res.bytes;
    }
  }
  const at = (series, q) => ({
    service: round(percentile(series.collection, q)),
    baseline: round(percentile(series.file, q)),
  });
  const what = isPage
    ? `GET /c/<id> as a visitor, ${count} files, page ${bodyBytes.collection} bytes`
    : `GET /api/v1/collections/<id> as its owner (the collection page was not there: GET /c/<id> answered ${probe.status}), ${count} files, ${bodyBytes.collection} bytes of JSON`;
  const note = `${what}; one request at a time, a new connection each; baseline: a single file's share page GET /f/<id> (${bodyBytes.file} bytes) in turn; informational`;
  const r = (xs) => xs.map((x) => round(x));
  return [
    {
      measure: `TTFB ${subject.name}, ${count} files, p50 (ms)`,
      unit: 'ms',
      ...at(ttfb, 0.5),
      note,
      samples: { service: r(ttfb.collection), baseline: r(ttfb.file) },
    },
    { measure: `TTFB ${subject.name}, ${count} files, p99 (ms)`, unit: 'ms', ...at(ttfb, 0.99), note },
    {
      measure: `to last byte, ${subject.name}, ${count} files, p50 (ms)`,
      unit: 'ms',
      ...at(total, 0.5),
      note,
      samples: { service: r(total.collection), baseline: r(total.file) },
    },
  ];
}

// ---------------------------------------------------------------------------- small files
/**
 * Small files at BENCH_CONCURRENCY keep-alive clients: uploads, raw downloads and the share
 * page, against the bare servers `bare` (startBareServers) in the same run. The PostgreSQL + S3
 * phase runs it too, `prefix` naming its lines: there the service's files are objects, so the
 * bare download server reads the copies the bare upload server wrote (same sizes and bytes)
 * rather than the service's own files (`bareReadsServiceFiles`). `alsoWatch`: other processes
 * (s3rver) whose CPU during the service's requests goes in the JSON, to see where time goes.
 */
async function measureSmall({
  port,
  cookie,
  bare,
  serviceRss,
  prefix = '',
  bareReadsServiceFiles = true,
  alsoWatch = {},
  withTargets = true,
}) {
  const { bareUpPort, bareDownPort, bareUpRss, bareDownRss } = bare;
  const size = S.smallKb * 1024;
  const label = `${S.smallKb} KiB`;
  const payloads = Array.from({ length: 64 }, () => randomBytes(size));
  const up = {
    service: [],
    bareFsync: [],
    bareNoFsync: [],
    serviceLat: [],
    serviceRss: [],
    bareFsyncRss: [],
    bareNoFsyncRss: [],
    others: [],
  };
  const down = { service: [], bare: [], serviceLat: [], bareLat: [], serviceRss: [], bareRss: [], others: [] };
  const stored = [];
  /** The names the bare upload server gave the files it synced (what it serves on S3). */
  const bareStored = [];

  /** The service's requests, its RSS and CPU (and alsoWatch's CPU) watched meanwhile. */
  async function onService(into, requests) {
    serviceRss.start();
    for (const monitor of Object.values(alsoWatch)) monitor.start();
    const result = await requests();
    into.serviceRss.push(serviceRss.stop());
    into.others.push(Object.fromEntries(Object.entries(alsoWatch).map(([name, monitor]) => [name, monitor.stop()])));
    return result;
  }

  for (let run = 1; run <= S.smallRuns; run++) {
    log(`${prefix}${label}: ${S.smallCount} uploads × ${S.concurrency} clients, run ${run}/${S.smallRuns}`);
    const s = await onService(up, () =>
      withAgent((agent) =>
        runConcurrent(S.smallCount, S.concurrency, async (i) => {
          const res = await uploadBuffer({
            port,
            path: '/api/v1/files',
            data: payloads[i % payloads.length],
            filename: `small-${i}.bin`,
            cookie,
            agent,
          });
          assert(res.status === 201, `small upload ${res.status}: ${JSON.stringify(res.body)}`);
          stored.push(res.body.file);
        }),
      ),
    );
    up.service.push(s.perSecond);
    up.serviceLat.push(...s.latencies);

    for (const [key, query] of [
      ['bareFsync', '?fsync=1'],
      ['bareNoFsync', ''],
    ]) {
      bareUpRss.start();
      const b = await withAgent((agent) =>
        runConcurrent(S.smallCount, S.concurrency, async (i) => {
          const res = await uploadBuffer({
            port: bareUpPort,
            path: `/${query}`,
            data: payloads[i % payloads.length],
            filename: `small-${i}.bin`,
            agent,
          });
          assert(res.status === 201 && res.body.size === size, `bare small upload ${res.status}`);
          if (key === 'bareFsync') bareStored.push(res.body.name);
        }),
      );
      up[`${key}Rss`].push(bareUpRss.stop());
      up[key].push(b.perSecond);
    }
  }
  // What the 32 clients leave behind: the service's RSS once they have gone and it has idled.
  log(`${prefix}${label}: the service idles ${IDLE_RSS_SECONDS} s after the uploads`);
  const idle = await idleRss(serviceRss);

  const bareNameOf = (i) =>
    bareReadsServiceFiles ? stored[i % stored.length].storedName : bareStored[i % bareStored.length];
  for (let run = 1; run <= S.smallRuns; run++) {
    log(`${prefix}${label}: ${S.smallDownloads} raw downloads × ${S.concurrency} clients, run ${run}/${S.smallRuns}`);
    const s = await onService(down, () =>
      withAgent((agent) =>
        runConcurrent(S.smallDownloads, S.concurrency, async (i) => {
          const res = await download({ port, path: `/f/${stored[i % stored.length].id}/raw`, agent });
          assert(res.status === 200 && res.bytes === size, `small download ${res.status}`);
        }),
      ),
    );
    down.service.push(s.perSecond);
    down.serviceLat.push(...s.latencies);
    bareDownRss.start();
    const b = await withAgent((agent) =>
      runConcurrent(S.smallDownloads, S.concurrency, async (i) => {
        const res = await download({ port: bareDownPort, path: `/${bareNameOf(i)}`, agent });
        assert(res.status === 200 && res.bytes === size, `bare small download ${res.status}`);
      }),
    );
    down.bareRss.push(bareDownRss.stop());
    down.bare.push(b.perSecond);
    down.bareLat.push(...b.latencies);
  }

  const page = await measureSharePage({ port, file: stored[0], size, prefix, serviceRss });

  const r = (xs) => xs.map((x) => round(x));
  const group = `${prefix}small ${label}`;
  /** The line's target, or none where the lines are informational (withTargets false). */
  const aim = (target, check) => (withTargets ? { target, check } : {});
  record({
    group,
    measure: `${prefix}uploads/s ${label} ×${S.concurrency}`,
    unit: '1/s',
    service: round(best(up.service)),
    baseline: round(best(up.bareFsync)),
    ...aim('≥ 0.30', (_s, ratio) => ratio >= 0.3),
    note: 'baseline: bare busboy → disk with fsync per file',
    samples: { service: r(up.service), baseline: r(up.bareFsync) },
    latencyMs: { p50: round(median(up.serviceLat)), p99: round(percentile(up.serviceLat, 0.99)) },
  });
  record({
    group,
    measure: `${prefix}uploads/s ${label} vs no-fsync bare`,
    unit: '1/s',
    service: round(best(up.service)),
    baseline: round(best(up.bareNoFsync)),
    note: 'baseline: bare busboy → disk without fsync',
    samples: { baseline: r(up.bareNoFsync) },
  });
  record({
    group,
    measure: `${prefix}raw downloads/s ${label} ×${S.concurrency}`,
    unit: '1/s',
    service: round(best(down.service)),
    baseline: round(best(down.bare)),
    ...aim('≥ 0.50', (_s, ratio) => ratio >= 0.5),
    note: `baseline: bare stat + createReadStream.pipe(res) of ${bareReadsServiceFiles ? 'the same files' : "the bare upload server's copies (same sizes, on disk)"}`,
    samples: { service: r(down.service), baseline: r(down.bare) },
    latencyMs: {
      p50: round(median(down.serviceLat)),
      p99: round(percentile(down.serviceLat, 0.99)),
      bareP50: round(median(down.bareLat)),
      bareP99: round(percentile(down.bareLat, 0.99)),
    },
  });
  // CPU milliseconds per request (least of the runs): what the code costs, whatever the load.
  const cpuMs = (xs, count) => round((Math.min(...xs.map((x) => x.cpuS)) * 1000) / count, 2);
  /** alsoWatch's CPU ms per request during the service's runs, one value per run. */
  const othersCpuMs = (xs, count) =>
    Object.fromEntries(
      Object.keys(alsoWatch).map((name) => [name, xs.map((x) => round((x[name].cpuS * 1000) / count, 2))]),
    );
  record({
    group,
    measure: `${prefix}CPU ms per upload ${label}`,
    unit: 'ms',
    service: cpuMs(up.serviceRss, S.smallCount),
    baseline: cpuMs(up.bareFsyncRss, S.smallCount),
    note: 'user+system CPU of the server process per request; baseline: bare with fsync; lower is better',
    samples: {
      service: up.serviceRss.map((x) => round((x.cpuS * 1000) / S.smallCount, 2)),
      bareNoFsync: cpuMs(up.bareNoFsyncRss, S.smallCount),
      ...othersCpuMs(up.others, S.smallCount),
    },
  });
  record({
    group,
    measure: `${prefix}CPU ms per raw download ${label}`,
    unit: 'ms',
    service: cpuMs(down.serviceRss, S.smallDownloads),
    baseline: cpuMs(down.bareRss, S.smallDownloads),
    ...aim('≤ 0.5 ms', (s) => s <= 0.5),
    note: 'lower is better',
    samples: {
      service: down.serviceRss.map((x) => round((x.cpuS * 1000) / S.smallDownloads, 2)),
      ...othersCpuMs(down.others, S.smallDownloads),
    },
  });
  record({
    group,
    measure: `${prefix}peak RSS small uploads (MB)`,
    unit: 'MB',
    service: Math.max(...up.serviceRss.map((x) => x.peakMb)),
    ...aim('< 150 MB', (s) => s < 150),
    note: `while ${S.concurrency} clients upload; VmHWM reset before each run`,
    detail: up.serviceRss,
  });
  record({
    group,
    measure: `${prefix}RSS after small uploads, idle ${IDLE_RSS_SECONDS} s (MB)`,
    unit: 'MB',
    service: idle.lowestMb,
    ...aim('< 120 MB', (s) => s < 120),
    note: `the lowest VmRSS read every second for ${IDLE_RSS_SECONDS} s once the upload runs had ended and their clients had closed`,
    detail: {
      beforeMb: up.serviceRss[0].beforeMb,
      peakMb: Math.max(...up.serviceRss.map((x) => x.peakMb)),
      endOfUploadsMb: up.serviceRss.at(-1).afterMb,
      idleReadingsMb: idle.readingsMb,
    },
  });
  for (const line of page) record({ group, ...line });
}

/**
 * The server-rendered share page of one small file, fetched without cookie (as a visitor),
 * against the raw route of the same file, BENCH_SMALL_PAGES requests at BENCH_CONCURRENCY
 * clients per run, taking turns first. Every page must be a 200 that names the file.
 * Resolves with its lines (informational: no target).
 */
async function measureSharePage({ port, file, size, prefix, serviceRss }) {
  const rate = { page: [], raw: [] };
  const latency = { page: [], raw: [] };
  const rss = { page: [], raw: [] };
  let pageBytes = 0;
  const fetchFrom = {
    page: (agent) =>
      runConcurrent(S.smallPages, S.concurrency, async () => {
        const res = await fetchText({ port, path: `/f/${file.id}`, agent });
        assert(res.status === 200, `share page ${res.status}: ${res.text.slice(0, 300)}`);
        assert(res.text.includes(file.originalName), `the share page does not name the file (${file.originalName})`);
        pageBytes = res.bytes;
      }),
    raw: (agent) =>
      runConcurrent(S.smallPages, S.concurrency, async () => {
        const res = await download({ port, path: `/f/${file.id}/raw`, agent });
        assert(res.status === 200 && res.bytes === size, `raw ${res.status}, ${res.bytes} bytes`);
      }),
  };
  for (let run = 1; run <= S.smallRuns; run++) {
    log(
      `${prefix}share page: ${S.smallPages} GET /f/<id> and /f/<id>/raw × ${S.concurrency} clients, run ${run}/${S.smallRuns}`,
    );
    for (const who of rotate(['page', 'raw'], run - 1)) {
      serviceRss.start();
      const res = await withAgent((agent) => fetchFrom[who](agent));
      rss[who].push(serviceRss.stop());
      rate[who].push(res.perSecond);
      latency[who].push(...res.latencies);
    }
  }
  const r = (xs) => xs.map((x) => round(x));
  const note = `GET /f/<id> of one small file, no cookie, page ${pageBytes} bytes; baseline: GET /f/<id>/raw of the same file in the same runs; target: 3,000/s and p50 ≤ 10 ms on a quiet machine, or 0.3 of the raw link's rate in the same run`;
  const at = (q) => ({ service: round(percentile(latency.page, q)), baseline: round(percentile(latency.raw, q)) });
  // The service's CPU per request and RSS during each series: what a page costs over the raw route.
  const cpuMs = (xs) => xs.map((x) => round((x.cpuS * 1000) / S.smallPages, 2));
  return [
    {
      measure: `${prefix}share page GET /f/<id> (req/s) ×${S.concurrency}`,
      unit: '1/s',
      service: round(best(rate.page)),
      baseline: round(best(rate.raw)),
      note,
      samples: { service: r(rate.page), baseline: r(rate.raw) },
      detail: { cpuMsPerRequest: { service: cpuMs(rss.page), baseline: cpuMs(rss.raw) }, rss },
      target: '≥ 0.30',
      check: (s, ratio) => s >= 3000 || ratio >= 0.3,
    },
    { measure: `${prefix}share page p50 (ms)`, unit: 'ms', ...at(0.5) },
    { measure: `${prefix}share page p99 (ms)`, unit: 'ms', ...at(0.99) },
    // What 32 readers of share pages cost in memory (a render kept alive by an abort timer that
    // was never cleared once took this to ~190 MB): no target, the 150 MB line is for uploads.
    {
      measure: `${prefix}peak RSS share pages ×${S.concurrency} (MB)`,
      unit: 'MB',
      service: round(Math.max(...rss.page.map((x) => x.peakMb))),
      note: 'highest VmHWM over the page series; informational',
      samples: { service: r(rss.page.map((x) => x.peakMb)) },
    },
  ];
}

/** A keep-alive agent for one series of requests, closed after it: the clients leave, as real ones do. */
async function withAgent(fn) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.concurrency });
  try {
    return await fn(agent);
  } finally {
    agent.destroy();
  }
}

/** How long the service idles before its RSS is read after a phase (its lowest reading is kept). */
const IDLE_RSS_SECONDS = 5;
/** VmRSS read once a second for IDLE_RSS_SECONDS: memory freed late (GC, the allocator) counts. */
async function idleRss(monitor) {
  const readingsMb = [];
  for (let s = 0; s < IDLE_RSS_SECONDS; s++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    readingsMb.push(round(monitor.status().rss));
  }
  return { lowestMb: Math.min(...readingsMb), readingsMb };
}

// ---------------------------------------------------------------------------- listing
/** The list baseline's query and the API's file object, every field of it (docs/api.md), made in JavaScript. */
const BARE_FILES_SELECT =
  'SELECT id, user_id, original_name, mime_type, size, stored_name, created_at, expires_at, max_downloads, downloads, password_hash FROM files WHERE user_id = ?';
function bareApiFile(row) {
  return {
    id: row.id,
    userId: row.user_id,
    originalName: row.original_name,
    mimeType: row.mime_type,
    size: row.size,
    storedName: row.stored_name,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
    maxDownloads: row.max_downloads,
    downloads: row.downloads,
    hasPassword: row.password_hash !== null,
  };
}

async function measureList({ port, cookie, dataDir, serviceRss }) {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(path.join(dataDir, 'app.db'));
  const run = (sql, params = []) =>
    new Promise((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  const all = (sql, params = []) =>
    new Promise((resolve, reject) => db.all(sql, params, (e, rows) => (e ? reject(e) : resolve(rows))));
  try {
    await run('PRAGMA busy_timeout = 10000');
    const [user] = await all("SELECT id FROM users WHERE username_key = 'bench'");
    const [{ n }] = await all('SELECT count(*) AS n FROM files WHERE user_id = ?', [user.id]);
    const missing = Math.max(0, S.listFiles - n);
    log(`list: the user has ${n} files; inserting ${missing} rows straight into SQLite`);
    // created_at as MikroORM writes a Date here: an integer of milliseconds (checked on a real row).
    const [sample] = await all('SELECT typeof(created_at) AS t FROM files LIMIT 1');
    assert(!sample || sample.t === 'integer', `unexpected created_at storage: ${sample?.t}`);
    const now = Date.now();
    await run('BEGIN');
    for (let i = 0; i < missing; i++) {
      const id = randomBytes(16).toString('base64url');
      await run(
        'INSERT INTO files (id, user_id, original_name, mime_type, size, stored_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, user.id, `listed-${i}.txt`, 'text/plain', 4096, `${id}.txt`, now - (missing - i) * 1000],
      );
    }
    await run('COMMIT');

    const path_ = '/api/v1/files';
    for (let i = 0; i < 3; i++) await requestJson({ port, path: path_, cookie }); // warm-up
    log(`list: ${S.listRequests} sequential GET ${path_} with ${S.listFiles} files`);
    const service = [];
    let bytes = 0;
    serviceRss.start();
    for (let i = 0; i < S.listRequests; i++) {
      const res = await requestJson({ port, path: path_, cookie });
      assert(
        res.status === 200 && res.body.files.length === Math.max(n, S.listFiles),
        `list ${res.status}, ${res.body?.files?.length} files`,
      );
      service.push(res.ms);
      bytes = res.bytes;
    }
    const rss = serviceRss.stop();

    // Baseline: the same query and JSON shape with sqlite3 directly, no HTTP.
    const bare = [];
    for (let i = 0; i < S.listRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(`${BARE_FILES_SELECT} ORDER BY created_at DESC, id DESC`, [user.id]);
      JSON.stringify({ files: rows.map(bareApiFile) });
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    // One page of 100 (keyset pagination, ?limit=100), the way a client that pages would ask.
    const page = [];
    for (let i = 0; i < S.listRequests; i++) {
      const res = await requestJson({ port, path: `${path_}?limit=100`, cookie });
      assert(res.status === 200 && res.body.files.length === 100 && res.body.nextCursor, `list page ${res.status}`);
      page.push(res.ms);
    }
    const barePage = [];
    for (let i = 0; i < S.listRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(`${BARE_FILES_SELECT} ORDER BY created_at DESC, id DESC LIMIT 101`, [user.id]);
      JSON.stringify({ files: rows.slice(0, 100).map(bareApiFile) });
      barePage.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }

    const note = `baseline: the same SELECT + JSON.stringify with sqlite3 in the bench process (no HTTP); body ${round(bytes / MiB, 2)} MiB`;
    record({
      group: 'list',
      measure: `GET /api/v1/files p50 (ms), ${S.listFiles} files`,
      unit: 'ms',
      service: round(median(service)),
      baseline: round(median(bare)),
      target: '≤ 1.30',
      check: (_s, ratio) => ratio <= 1.3,
      note,
      samples: { service: service.map((x) => round(x)), baseline: bare.map((x) => round(x, 2)) },
    });
    record({
      group: 'list',
      measure: `GET /api/v1/files p99 (ms), ${S.listFiles} files`,
      unit: 'ms',
      service: round(percentile(service, 0.99)),
      baseline: round(percentile(bare, 0.99)),
      note,
    });
    record({
      group: 'list',
      measure: 'GET /api/v1/files?limit=100 p50 (ms)',
      unit: 'ms',
      service: round(median(page)),
      baseline: round(median(barePage)),
      note: `first page of 100 of the same ${S.listFiles}; baseline: SELECT … LIMIT 101 + JSON.stringify`,
    });
    record({
      group: 'list',
      measure: 'GET /api/v1/files?limit=100 p99 (ms)',
      unit: 'ms',
      service: round(percentile(page, 0.99)),
      baseline: round(percentile(barePage, 0.99)),
    });
    record({
      group: 'list',
      measure: 'peak RSS listing (MB)',
      unit: 'MB',
      service: rss.peakMb,
      note: 'informational',
      detail: rss,
    });
  } finally {
    await new Promise((resolve) => db.close(resolve));
  }
}

// ---------------------------------------------------------------------------- thumbnails, search, "My files"
/** The bench's own handle on the service's SQLite database (run, all, a prepared insert). */
function openDatabase(dataDir) {
  const sqlite3 = require('sqlite3');
  const db = new sqlite3.Database(path.join(dataDir, 'app.db'));
  const run = (sql, params = []) =>
    new Promise((resolve, reject) => db.run(sql, params, (e) => (e ? reject(e) : resolve())));
  const all = (sql, params = []) =>
    new Promise((resolve, reject) => db.all(sql, params, (e, rows) => (e ? reject(e) : resolve(rows))));
  const close = () => new Promise((resolve) => db.close(resolve));
  return { db, run, all, close };
}

/**
 * `count` file rows for `username`, inserted straight into SQLite in one transaction (as the list
 * phase does: no content on disk, which neither a search nor a page of the list reads).
 * `nameOf(i)` gives each name; the newest is i = count - 1. Resolves with the user's id.
 */
async function seedFiles(dataDir, username, count, nameOf) {
  const { db, run, all, close } = openDatabase(dataDir);
  try {
    await run('PRAGMA busy_timeout = 10000');
    const [user] = await all('SELECT id FROM users WHERE username_key = ?', [username]);
    assert(user, `no user ${username}`);
    const [{ n }] = await all('SELECT count(*) AS n FROM files WHERE user_id = ?', [user.id]);
    assert(n === 0, `${username} already has ${n} files`);
    log(`${username}: inserting ${count} rows straight into SQLite`);
    const now = Date.now();
    await run('BEGIN');
    const insert = db.prepare(
      'INSERT INTO files (id, user_id, original_name, mime_type, size, stored_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < count; i++) {
      const id = randomBytes(16).toString('base64url');
      const name = nameOf(i);
      const ext = name.slice(name.lastIndexOf('.'));
      const mime = ext === '.jpg' ? 'image/jpeg' : ext === '.pdf' ? 'application/pdf' : 'text/plain';
      await new Promise((resolve, reject) =>
        insert.run([id, user.id, name, mime, 4096 + (i % 997), `${id}${ext}`, now - (count - i) * 1000], (e) =>
          e ? reject(e) : resolve(),
        ),
      );
    }
    await new Promise((resolve) => insert.finalize(resolve));
    await run('COMMIT');
    return user.id;
  } finally {
    await close();
  }
}

/**
 * BENCH_THUMBNAILS JPEGs of 4000 × 3000 (12 MP), each a gradient under noise (a few MB, as a
 * phone photo: not trivially compressible), made with sharp into the input dir.
 */
async function thumbnailInputs(inputDir) {
  const sharp = require('sharp');
  const [width, height] = [4000, 3000];
  const files = [];
  const pixels = Buffer.allocUnsafe(width * height * 3);
  const noise = Buffer.allocUnsafe(pixels.length);
  log(`thumbnails: generating ${S.thumbnails} JPEGs of ${width} × ${height}`);
  for (let n = 0; n < S.thumbnails; n++) {
    const file = path.join(inputDir, `photo-${n}.jpg`);
    files.push(file);
    if (fs.existsSync(file)) continue;
    randomFillSync(noise);
    for (let y = 0, p = 0; y < height; y++) {
      for (let x = 0; x < width; x++, p += 3) {
        pixels[p] = ((x * 255) / width + n * 5 + (noise[p] & 31)) & 255;
        pixels[p + 1] = ((y * 255) / height + (noise[p + 1] & 31)) & 255;
        pixels[p + 2] = (((x + y) * 128) / width + (noise[p + 2] & 31)) & 255;
      }
    }
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 85 })
      .toFile(file);
  }
  return files;
}

/**
 * Thumbnails (ADR 0041): the images uploaded by SET_UP_CLIENTS clients, then each one's
 * /f/<id>/thumbnail asked until it answers 200 (a request for one being made waits for it).
 * The rate is the images over the time from the first upload to the last thumbnail; the
 * service's peak RSS is over the same time.
 */
async function measureThumbnails({ port, cookie, inputDir, serviceRss }) {
  const files = await thumbnailInputs(inputDir);
  const inputBytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
  log(`thumbnails: ${files.length} uploads (${round(inputBytes / MiB)} MiB), then their thumbnails`);
  serviceRss.start();
  const t0 = process.hrtime.bigint();
  const stored = new Array(files.length);
  await runConcurrent(files.length, SET_UP_CLIENTS, async (i) => {
    const res = await uploadFromDisk({
      port,
      path: '/api/v1/files',
      file: files[i],
      filename: `photo-${i}.jpg`,
      cookie,
    });
    assert(res.status === 201, `image upload ${res.status}: ${JSON.stringify(res.body)}`);
    stored[i] = res.body.file;
  });
  const uploadedMs = elapsedMs(t0);
  let thumbnailBytes = 0;
  await runConcurrent(files.length, 2, async (i) => {
    for (let attempt = 0; ; attempt++) {
      const res = await download({ port, path: `/f/${stored[i].id}/thumbnail`, cookie });
      if (res.status === 200) {
        thumbnailBytes += res.bytes;
        return;
      }
      assert(attempt < 600, `thumbnail of ${stored[i].id}: still ${res.status} after a minute`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  const ms = elapsedMs(t0);
  const rss = serviceRss.stop();
  const note = `${files.length} JPEGs of 4000 × 3000 (${round(inputBytes / MiB / files.length, 1)} MiB each on average) uploaded by ${SET_UP_CLIENTS} clients in ${round(uploadedMs / 1000, 1)} s, then each /f/<id>/thumbnail until 200 (${round(thumbnailBytes / files.length / 1024, 1)} KiB each)`;
  record({
    group: 'thumbnails',
    measure: `thumbnails/s, ${files.length} images of 12 MP`,
    unit: '1/s',
    service: round(files.length / (ms / 1000), 2),
    note: `${note}; from the first upload to the last thumbnail, ${round(ms / 1000, 1)} s; informational`,
  });
  record({
    group: 'thumbnails',
    measure: 'peak RSS making thumbnails (MB)',
    unit: 'MB',
    service: rss.peakMb,
    target: '< 250 MB',
    check: (s) => s < 250,
    note: 'from the first upload to the last thumbnail; VmHWM reset before',
    detail: rss,
  });
}

/** The names of the search phase: one in a hundred has the word "holiday", none has "zebra". */
const SEARCH_WORDS = ['invoice', 'photo', 'scan', 'notes', 'backup', 'draft', 'report', 'slides'];
const searchName = (i) =>
  i % 100 === 0 ? `Holiday-${i}.jpg` : `${SEARCH_WORDS[i % SEARCH_WORDS.length]}-${i}.${i % 3 ? 'pdf' : 'txt'}`;

/**
 * Searching the list (ADR 0042): GET /api/v1/files?q=<word> of a user with BENCH_SEARCH_FILES
 * files, sequentially, for a word in 1 % of the names (any case) and for one in none.
 */
async function measureSearch({ port, dataDir }) {
  const userId = await seedFiles(dataDir, SEEDED_USERS.search, S.searchFiles, searchName);
  const cookie = await logIn(port, SEEDED_USERS.search);
  const { all, close } = openDatabase(dataDir);
  const expected = Math.ceil(S.searchFiles / 100);
  for (const [word, count] of [
    ['holiday', expected],
    ['zebra', 0],
  ]) {
    const urlPath = `/api/v1/files?q=${word}`;
    for (let i = 0; i < 3; i++) await requestJson({ port, path: urlPath, cookie }); // warm-up
    log(`search: ${S.searchRequests} sequential GET ${urlPath}, ${S.searchFiles} files`);
    const ms = [];
    for (let i = 0; i < S.searchRequests; i++) {
      const res = await requestJson({ port, path: urlPath, cookie });
      assert(
        res.status === 200 && res.body.files.length === count,
        `search ${word}: ${res.status}, ${res.body?.files?.length} files`,
      );
      ms.push(res.ms);
    }
    // Baseline: the plain scan of the user's rows (no name index) and JSON with sqlite3 in the bench process, no HTTP.
    const bare = [];
    for (let i = 0; i < S.searchRequests; i++) {
      const t0 = process.hrtime.bigint();
      const rows = await all(
        `${BARE_FILES_SELECT} AND original_name LIKE ? ESCAPE '\\' ORDER BY created_at DESC, id DESC`,
        [userId, `%${word}%`],
      );
      assert(rows.length === count, `bare search ${word}: ${rows.length} rows`);
      JSON.stringify({ files: rows.map(bareApiFile) });
      bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const what = count ? `"${word}", in ${count} names (1 %)` : `"${word}", in no name`;
    record({
      group: 'search',
      measure: `GET /api/v1/files?q=${word} p50 (ms), ${S.searchFiles} files`,
      unit: 'ms',
      service: round(median(ms)),
      baseline: round(median(bare)),
      target: '< 50 ms',
      check: (s) => s < 50,
      note: `${what}; sequential, one connection each; the whole list of matches (no limit); baseline: a plain SELECT … LIKE over the user's rows + JSON.stringify with sqlite3 in the bench process (no HTTP)`,
      samples: { service: ms.map((x) => round(x)), baseline: bare.map((x) => round(x, 2)) },
    });
    record({
      group: 'search',
      measure: `GET /api/v1/files?q=${word} p95 (ms), ${S.searchFiles} files`,
      unit: 'ms',
      service: round(percentile(ms, 0.95)),
      baseline: round(percentile(bare, 0.95)),
      note: what,
    });
  }
  await close();
}

/**
 * "My files" (GET /files, its first page) of a user with BENCH_FILELIST_FILES files: time to
 * first byte, sequentially, a new connection each, the table and ?view=gallery in turn (where
 * the gallery is not there, the page answers with its table).
 */
async function measureFileList({ port, dataDir }) {
  await seedFiles(dataDir, SEEDED_USERS.filelist, S.filelistFiles, (i) => `listed-${i}.${i % 4 ? 'pdf' : 'jpg'}`);
  const cookie = await logIn(port, SEEDED_USERS.filelist);
  const newest = `listed-${S.filelistFiles - 1}.`;
  const views = { table: '/files', gallery: '/files?view=gallery' };
  const ttfb = { table: [], gallery: [] };
  const bytes = { table: 0, gallery: 0 };
  log(`filelist: ${S.filelistRequests} × GET /files and /files?view=gallery, ${S.filelistFiles} files`);
  for (let i = -3; i < S.filelistRequests; i++) {
    for (const view of rotate(Object.keys(views), Math.max(i, 0))) {
      const res = await timeToFirstByte({ port, path: views[view], cookie });
      assert(res.status === 200, `GET ${views[view]}: ${res.status} ${res.text.slice(0, 300)}`);
      assert(res.text.includes(newest), `GET ${views[view]} does not show the newest file (${newest}…)`);
      if (i < 0) continue; // the first three warm the route up
      ttfb[view].push(res.ttfbMs);
      bytes[view] = res.bytes;
    }
  }
  for (const view of Object.keys(views)) {
    record({
      group: 'filelist',
      measure: `TTFB My files GET ${views[view]}, ${S.filelistFiles} files, p50 (ms)`,
      unit: 'ms',
      service: round(median(ttfb[view])),
      note: `logged in; its first page, ${bytes[view]} bytes; one request at a time, a new connection each; informational`,
      samples: ttfb[view].map((x) => round(x)),
    });
  }
}

// ---------------------------------------------------------------------------- the cost of metrics
const METRICS_TOKEN = randomBytes(24).toString('hex');
/** Files each service of the metrics phase holds (the downloads go round them). */
const METRICS_FILES = 256;

/**
 * What Prometheus metrics (ADR 0049) cost the hot path: two services side by side, each on a
 * data dir of its own holding the same 256 files of BENCH_SMALL_KB, one with METRICS_TOKEN set and one
 * without, serving BENCH_SMALL_DOWNLOADS raw downloads at BENCH_CONCURRENCY clients per run,
 * taking turns first. The line's baseline is the service without metrics.
 */
async function measureMetricsCost({ logDir }) {
  const size = S.smallKb * 1024;
  const label = `${S.smallKb} KiB`;
  const payloads = Array.from({ length: 64 }, () => randomBytes(size));
  const sides = {};
  for (const side of ['off', 'on']) {
    const dataDir = path.join(tmp, `data-metrics-${side}`);
    fs.mkdirSync(dataDir, { recursive: true });
    const port = await freePort();
    const serviceEnv = serviceEnvFor({
      port,
      dataDir,
      maxMb: 1,
      extra: side === 'on' ? { METRICS_TOKEN } : {},
    });
    registerBenchUser(serviceEnv);
    const proc = startService(`service-metrics-${side}`, serviceEnv, logDir);
    await waitForHealth(port, proc.entry);
    const cookie = await logIn(port);
    const stored = [];
    await withAgent((agent) =>
      runConcurrent(METRICS_FILES, SET_UP_CLIENTS, async (i) => {
        const res = await uploadBuffer({
          port,
          path: '/api/v1/files',
          data: payloads[i % payloads.length],
          filename: `small-${i}.bin`,
          cookie,
          agent,
        });
        assert(res.status === 201, `small upload ${res.status}`);
        stored.push(res.body.file);
      }),
    );
    sides[side] = { port, proc, stored, rss: new RssMonitor(proc.child.pid), rates: [], cpu: [], lat: [] };
  }
  try {
    log(`metrics: ${METRICS_FILES} files of ${label} on each service, metrics on and off`);
    for (let run = 0; run < S.smallRuns; run++) {
      for (const side of rotate(['off', 'on'], run)) {
        const { port, stored, rss } = sides[side];
        log(
          `metrics ${side}: ${S.smallDownloads} raw downloads × ${S.concurrency} clients, run ${run + 1}/${S.smallRuns}`,
        );
        rss.start();
        const result = await withAgent((agent) =>
          runConcurrent(S.smallDownloads, S.concurrency, async (i) => {
            const res = await download({ port, path: `/f/${stored[i % stored.length].id}/raw`, agent });
            assert(res.status === 200 && res.bytes === size, `small download ${res.status}`);
          }),
        );
        sides[side].cpu.push(rss.stop().cpuS);
        sides[side].rates.push(result.perSecond);
        sides[side].lat.push(...result.latencies);
      }
    }
    // The metrics must have counted the downloads: the page answers and names the raw route.
    const page = await fetchMetrics(sides.on.port);
    assert(page.includes('route="/f/:id/raw"'), 'the metrics do not count the raw downloads');
  } finally {
    await Promise.all(Object.values(sides).map(({ proc }) => stopChild(proc.entry)));
  }
  const r = (xs) => xs.map((x) => round(x));
  const cpuMs = (side) => round((Math.min(...sides[side].cpu) * 1000) / S.smallDownloads, 3);
  record({
    group: 'metrics',
    measure: `raw downloads/s ${label} ×${S.concurrency}, metrics on vs off`,
    unit: '1/s',
    service: round(best(sides.on.rates)),
    baseline: round(best(sides.off.rates)),
    target: '≥ 0.97',
    check: (_s, ratio) => ratio >= 0.97,
    note: 'service: METRICS_TOKEN set (every request counted); baseline: the same service without metrics, on a copy of the same files; best run of each',
    samples: { service: r(sides.on.rates), baseline: r(sides.off.rates) },
    latencyMs: {
      p50: round(median(sides.on.lat), 2),
      p99: round(percentile(sides.on.lat, 0.99), 2),
      offP50: round(median(sides.off.lat), 2),
      offP99: round(percentile(sides.off.lat, 0.99), 2),
    },
  });
  record({
    group: 'metrics',
    measure: `CPU ms per raw download ${label}, metrics on vs off`,
    unit: 'ms',
    service: cpuMs('on'),
    baseline: cpuMs('off'),
    target: '≤ 1.03',
    check: (_s, ratio) => ratio <= 1.03,
    note: 'user+system CPU of the service per request, least of the runs; lower is better',
    samples: {
      service: sides.on.cpu.map((x) => round((x * 1000) / S.smallDownloads, 3)),
      baseline: sides.off.cpu.map((x) => round((x * 1000) / S.smallDownloads, 3)),
    },
  });
}

/** GET /metrics with the bench's token; resolves with its text. */
async function fetchMetrics(port) {
  const res = await fetch(`http://${HOST}:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert(res.status === 200, `GET /metrics ${res.status}`);
  return res.text();
}

// ---------------------------------------------------------------------------- PostgreSQL + S3
// PostgreSQL + S3: the service on PostgreSQL with its content in a bucket, against the AWS SDK alone
// moving the same bytes to and from the same S3 server. s3rver is slow (it writes each part
// to its disk and concatenates them on completion), but equally so for both: the ratio is
// what the service costs on top of the SDK. A third contender, the bare proxy
// (bench/bare-s3-proxy.mjs), moves the same bytes through a Node process with nothing else to
// do: on a machine this small, what any process in between costs, service or not, since
// client, proxy and s3rver share its cores. Settings as in server/storage/s3-store.ts:
const S3_PART_BYTES = 8 * MiB;
const S3_QUEUE_SIZE = 2;
const S3_BUCKET = 'bench';
/** s3rver checks no credentials; these are the ones the tests give the service too. */
const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Debian's PostgreSQL binaries, or null with the phase recorded as skipped. */
function postgresBinOrSkip(phase, group, measure) {
  const bin = postgresBin();
  if (!bin) {
    const reason = 'no PostgreSQL binaries in /usr/lib/postgresql/<version>/bin (apt-get install -y postgresql)';
    log(`${phase}: skipped: ${reason}`);
    record({ group, measure, service: 'skipped', note: `skipped: ${reason}` });
  }
  return bin;
}

/**
 * The small-file lines on PostgreSQL: the service on a PostgreSQL database and its local
 * folder, against the same bare servers as the disk phase (the bare download server reads the
 * service's own files), so the database is the one difference from the disk phase.
 */
async function measureOnPostgresDisk({ logDir }) {
  const bin = postgresBinOrSkip('pg', 'pg', 'PostgreSQL phase');
  if (!bin) return;
  log(`pg: starting PostgreSQL (${bin})`);
  const postgres = startPostgres({ bin, port: await freePort() });
  stoppers.add(postgres.stop);
  try {
    postgres.createDatabase('bench_pg');
    const port = await freePort();
    const dataDir = path.join(tmp, 'data-pg');
    const bareDir = path.join(tmp, 'bare-uploads-pg');
    for (const dir of [dataDir, bareDir]) fs.mkdirSync(dir, { recursive: true });
    const serviceEnv = serviceEnvFor({ port, dataDir, maxMb: 1, extra: { DATABASE_URL: `${postgres.url}/bench_pg` } });
    registerBenchUser(serviceEnv);
    const service = startService('service-pg', serviceEnv, logDir);
    const [bare] = await Promise.all([
      startBareServers({ logDir, uploadDir: bareDir, downloadDir: path.join(dataDir, 'uploads'), nameSuffix: '-pg' }),
      waitForHealth(port, service.entry),
    ]);
    log(
      `pg: service pid ${service.child.pid} on ${HOST}:${port}, ${postgres.url}/bench_pg; bare upload :${bare.bareUpPort}, bare download :${bare.bareDownPort}`,
    );
    const serviceRss = new RssMonitor(service.child.pid);
    results.pgServiceIdleRssMb = round(serviceRss.status().rss);
    const cookie = await logIn(port);
    await measureSmall({ port, cookie, bare, serviceRss, prefix: 'pg ' });
    results.pgServiceFinalRssMb = round(serviceRss.status().rss);
    await Promise.all([stopChild(service.entry), bare.stop()]);
  } finally {
    stoppers.delete(postgres.stop);
    postgres.stop();
  }
}

async function measureOnPostgresS3({ inputDir, logDir }) {
  const bin = postgresBinOrSkip('s3', 'pg+s3', 'PostgreSQL + S3 phase');
  if (!bin) return;
  const input = largeInput(inputDir, S.largeMb);
  log(`s3: starting PostgreSQL (${bin}) and s3rver`);
  const postgres = startPostgres({ bin, port: await freePort() });
  stoppers.add(postgres.stop);
  let sdk = null;
  try {
    postgres.createDatabase('bench');
    const s3rver = spawnChild('s3rver', process.execPath, ['bench/s3rver-server.mjs', path.join(tmp, 's3rver')], {
      logDir,
      handshake: true,
    });
    const endpoint = `http://${HOST}:${await handshakePort(s3rver)}`;
    sdk = await bareSdk(endpoint);
    await sdk.client.send(new sdk.commands.CreateBucketCommand({ Bucket: S3_BUCKET }));
    // Idle until the large measures, as the service is; stopped with it.
    const proxy = spawnChild('bare-s3-proxy', process.execPath, ['bench/bare-s3-proxy.mjs', endpoint, S3_BUCKET], {
      logDir,
      handshake: true,
    });
    const proxyPort = await handshakePort(proxy);

    const port = await freePort();
    const dataDir = path.join(tmp, 'data-s3');
    fs.mkdirSync(dataDir, { recursive: true });
    const serviceEnv = serviceEnvFor({
      port,
      dataDir,
      maxMb: S.largeMb,
      extra: {
        DATABASE_URL: `${postgres.url}/bench`,
        S3_BUCKET,
        S3_ENDPOINT: endpoint,
        S3_REGION: 'us-east-1',
        S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
        S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
      },
    });
    registerBenchUser(serviceEnv);
    const service = startService('service-s3', serviceEnv, logDir);
    await waitForHealth(port, service.entry);
    log(
      `s3: service pid ${service.child.pid} on ${HOST}:${port}, ${postgres.url}/bench, s3rver pid ${s3rver.child.pid} at ${endpoint}, bare proxy pid ${proxy.child.pid} on :${proxyPort}`,
    );
    const serviceRss = new RssMonitor(service.child.pid);
    results.s3ServiceIdleRssMb = round(serviceRss.status().rss);
    const cookie = await logIn(port);

    const s3rverRss = new RssMonitor(s3rver.child.pid);
    const proxyRss = new RssMonitor(proxy.child.pid);
    await measureLargeOnS3({
      port,
      cookie,
      sdk,
      input,
      serviceRss,
      s3rverRss,
      proxy: { port: proxyPort, rss: proxyRss },
    });

    // Small files against the same bare baselines as the disk phase (busboy → disk with fsync;
    // stat + createReadStream), started for these measures only: the bare download server
    // serves the bare upload server's own copies, the service's files being objects in s3rver.
    const bareDir = path.join(tmp, 'bare-uploads-s3');
    fs.mkdirSync(bareDir, { recursive: true });
    const bare = await startBareServers({ logDir, uploadDir: bareDir, downloadDir: bareDir, nameSuffix: '-s3' });
    log(`s3: bare upload :${bare.bareUpPort}, bare download :${bare.bareDownPort}`);
    // Informational: the judged small-file lines on PostgreSQL are the `pg` phase's. Here s3rver's
    // own CPU per request (1.0-1.3 ms a GET, 1.5-2.5 ms a PUT) runs on the same two cores and
    // alone exceeds what the lines allow against a bare server reading its disk.
    await measureSmall({
      port,
      cookie,
      bare,
      serviceRss,
      prefix: 'pg+s3 ',
      bareReadsServiceFiles: false,
      alsoWatch: { s3rver: s3rverRss },
      withTargets: false,
    });
    results.s3ServiceFinalRssMb = round(serviceRss.status().rss);
    await Promise.all([service.entry, s3rver.entry, proxy.entry].map((entry) => stopChild(entry)).concat(bare.stop()));
  } finally {
    sdk?.client.destroy();
    stoppers.delete(postgres.stop);
    postgres.stop();
  }
}

/** The bare SDK, configured as the service's store: same endpoint style and checksum settings. */
async function bareSdk(endpoint) {
  const { S3Client, CreateBucketCommand, GetObjectCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: S3_KEYS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { client, Upload, commands: { CreateBucketCommand, GetObjectCommand, HeadObjectCommand } };
}

/** CPU seconds this process used since `before` (a process.cpuUsage() value). */
const ownCpuSince = (before) => {
  const { user, system } = process.cpuUsage(before);
  return { cpuS: (user + system) / 1e6 };
};
const elapsedMs = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

async function measureLargeOnS3({ port, cookie, sdk, input, serviceRss, s3rverRss, proxy }) {
  const mb = S.largeMb;
  const bytes = mb * MiB;
  const label = sizeLabel(mb);
  const runs = S.largeRuns;
  const mibPerS = (ms) => bytes / MiB / (ms / 1000);
  // Per contender: MiB/s, the server's (or the SDK's) CPU and RSS, s3rver's CPU meanwhile, and
  // the HTTP client's CPU for the service (the machine has 2 cores for all three processes);
  // the same for the bare proxy as for the service.
  const fresh = () => ({
    service: [],
    sdk: [],
    serviceRss: [],
    sdkCpu: [],
    clientForService: [],
    s3rverForService: [],
    s3rverForSdk: [],
    proxy: [],
    proxyRss: [],
    clientForProxy: [],
    s3rverForProxy: [],
  });
  const up = fresh();
  const down = fresh();
  let stored = null;

  const uploadTo = {
    service: async () => {
      // The real REST upload: busboy → byte counter → lib-storage multipart upload → the row in PostgreSQL.
      serviceRss.start();
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const res = await uploadFromDisk({ port, path: '/api/v1/files', file: input, filename: `s3-${mb}.bin`, cookie });
      up.clientForService.push(ownCpuSince(cpu));
      up.serviceRss.push(serviceRss.stop());
      up.s3rverForService.push(s3rverRss.stop());
      assert(res.status === 201, `service upload ${res.status}: ${JSON.stringify(res.body)}`);
      assert(res.body.file.size === bytes, `service stored ${res.body.file.size} bytes, expected ${bytes}`);
      up.service.push(mibPerS(res.ms));
      // Objects stay until the end (they go with the temp dir), as the disk phase keeps its files.
      stored = res.body.file;
    },
    sdk: async (run) => {
      const key = `sdk-upload-${run}.bin`;
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const upload = new sdk.Upload({
        client: sdk.client,
        // Read in 1 MiB chunks, as the HTTP client reads the file for the service.
        params: {
          Bucket: S3_BUCKET,
          Key: key,
          Body: fs.createReadStream(input, { highWaterMark: MiB }),
          ContentType: 'application/octet-stream',
        },
        partSize: S3_PART_BYTES,
        queueSize: S3_QUEUE_SIZE,
        leavePartsOnError: false,
      });
      await upload.done();
      const ms = elapsedMs(t0);
      up.sdkCpu.push(ownCpuSince(cpu));
      up.s3rverForSdk.push(s3rverRss.stop());
      const head = await sdk.client.send(new sdk.commands.HeadObjectCommand({ Bucket: S3_BUCKET, Key: key }));
      assert(head.ContentLength === bytes, `the SDK stored ${head.ContentLength} bytes, expected ${bytes}`);
      up.sdk.push(mibPerS(ms));
    },
    proxy: async (run) => {
      // The same request as the service's (the same client, the same multipart body), to a
      // process that only hands the file stream to lib-storage: no auth, no database.
      const key = `proxy-upload-${run}.bin`;
      proxy.rss.start();
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const res = await uploadFromDisk({
        port: proxy.port,
        path: `/upload/${key}`,
        file: input,
        filename: `s3-${mb}.bin`,
      });
      up.clientForProxy.push(ownCpuSince(cpu));
      up.proxyRss.push(proxy.rss.stop());
      up.s3rverForProxy.push(s3rverRss.stop());
      assert(res.status === 201, `bare proxy upload ${res.status}: ${JSON.stringify(res.body)}`);
      assert(res.body.size === bytes, `the bare proxy sent ${res.body.size} bytes, expected ${bytes}`);
      // Its own count aside, what s3rver holds (as for the SDK's uploads, after the clock).
      const head = await sdk.client.send(new sdk.commands.HeadObjectCommand({ Bucket: S3_BUCKET, Key: key }));
      assert(head.ContentLength === bytes, `the bare proxy stored ${head.ContentLength} bytes, expected ${bytes}`);
      up.proxy.push(mibPerS(res.ms));
    },
  };
  for (let run = 1; run <= runs; run++) {
    log(`s3: ${label} upload run ${run}/${runs}`);
    for (const who of rotate(['service', 'sdk', 'proxy'], run - 1)) await uploadTo[who](run);
  }

  // All three download the object the service stored last.
  const downloadFrom = {
    service: async () => {
      serviceRss.start();
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const res = await download({ port, path: `/f/${stored.id}/raw` });
      down.clientForService.push(ownCpuSince(cpu));
      down.serviceRss.push(serviceRss.stop());
      down.s3rverForService.push(s3rverRss.stop());
      assert(res.status === 200 && res.bytes === bytes, `service download ${res.status}, ${res.bytes} bytes`);
      down.service.push(mibPerS(res.ms));
    },
    sdk: async () => {
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const object = await sdk.client.send(
        new sdk.commands.GetObjectCommand({ Bucket: S3_BUCKET, Key: stored.storedName }),
      );
      const received = await countAndDiscard(object.Body);
      const ms = elapsedMs(t0);
      down.sdkCpu.push(ownCpuSince(cpu));
      down.s3rverForSdk.push(s3rverRss.stop());
      assert(received === bytes, `the SDK received ${received} bytes, expected ${bytes}`);
      down.sdk.push(mibPerS(ms));
    },
    proxy: async () => {
      proxy.rss.start();
      s3rverRss.start();
      const cpu = process.cpuUsage();
      const res = await download({ port: proxy.port, path: `/download/${encodeURIComponent(stored.storedName)}` });
      down.clientForProxy.push(ownCpuSince(cpu));
      down.proxyRss.push(proxy.rss.stop());
      down.s3rverForProxy.push(s3rverRss.stop());
      assert(res.status === 200 && res.bytes === bytes, `bare proxy download ${res.status}, ${res.bytes} bytes`);
      down.proxy.push(mibPerS(res.ms));
    },
  };
  for (let run = 1; run <= runs; run++) {
    log(`s3: ${label} download run ${run}/${runs}`);
    for (const who of rotate(['service', 'sdk', 'proxy'], run - 1)) await downloadFrom[who]();
  }

  const r = (xs) => xs.map((x) => round(x));
  const group = `pg+s3 ${label}`;
  const cpuPerGiB = (xs) => round(Math.min(...xs.map((x) => x.cpuS)) / (bytes / (1024 * MiB)), 2);
  const peak = (xs) => Math.max(...xs.map((x) => x.peakMb));
  const sdkSettings = `lib-storage Upload, ${S3_PART_BYTES / MiB} MiB parts, queue ${S3_QUEUE_SIZE}`;
  record({
    group,
    measure: `S3 upload ${label} (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(up.service)),
    baseline: round(best(up.sdk)),
    target: '≥ 0.90',
    check: (_s, ratio) => ratio >= 0.9,
    note: `service on PostgreSQL + s3rver; baseline: the SDK alone in the bench process (${sdkSettings}) to the same s3rver`,
    samples: { service: r(up.service), baseline: r(up.sdk) },
  });
  record({
    group,
    measure: `S3 download ${label} (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(down.service)),
    baseline: round(best(down.sdk)),
    target: '≥ 0.90',
    check: (_s, ratio) => ratio >= 0.9,
    note: 'GET /f/:id/raw; baseline: GetObjectCommand of the same object in the bench process, streamed and discarded',
    samples: { service: r(down.service), baseline: r(down.sdk) },
  });
  record({
    group,
    measure: `CPU s/GiB S3 upload ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(up.serviceRss),
    baseline: cpuPerGiB(up.sdkCpu),
    note: 'service process; baseline: the bench process running the SDK upload (file reads included); lower is better',
    samples: { httpClientForService: cpuPerGiB(up.clientForService) },
  });
  record({
    group,
    measure: `CPU s/GiB S3 download ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(down.serviceRss),
    baseline: cpuPerGiB(down.sdkCpu),
    note: 'service process; baseline: the bench process running the SDK download; lower is better',
    samples: { httpClientForService: cpuPerGiB(down.clientForService) },
  });
  // s3rver's own cost, for the service's transfers and for the SDK's: where the time goes.
  record({
    group,
    measure: `s3rver CPU s/GiB upload ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(up.s3rverForService),
    baseline: cpuPerGiB(up.s3rverForSdk),
    note: "informational: the S3 server during the service's uploads / the SDK's",
    detail: { service: up.s3rverForService, baseline: up.s3rverForSdk },
  });
  record({
    group,
    measure: `s3rver CPU s/GiB download ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(down.s3rverForService),
    baseline: cpuPerGiB(down.s3rverForSdk),
    note: 'informational',
    detail: { service: down.s3rverForService, baseline: down.s3rverForSdk },
  });
  record({
    group,
    measure: `peak RSS S3 upload ${label} (MB)`,
    unit: 'MB',
    service: peak(up.serviceRss),
    target: '< 150 MB',
    check: (s) => s < 150,
    note: 'VmHWM reset before each run, as in the disk phase',
    detail: up.serviceRss,
  });
  record({
    group,
    measure: `peak RSS S3 download ${label} (MB)`,
    unit: 'MB',
    service: peak(down.serviceRss),
    target: '< 150 MB',
    check: (s) => s < 150,
    detail: down.serviceRss,
  });
  // The bare proxy: how close any process between the client and s3rver can come to the SDK
  // alone here, and how far the service is from that floor. Informational (no target).
  const floorNote =
    'informational: bench/bare-s3-proxy.mjs (busboy → lib-storage, GetObject → pipe, nothing else) ' +
    'reached with the same HTTP client as the service; baseline: the SDK alone. The floor of any process in between ' +
    'on this machine: client, proxy and s3rver share its cores';
  record({
    group,
    measure: `S3 upload ${label}, bare proxy (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(up.proxy)),
    baseline: round(best(up.sdk)),
    note: floorNote,
    samples: { service: r(up.proxy), baseline: r(up.sdk) },
  });
  record({
    group,
    measure: `S3 download ${label}, bare proxy (MiB/s)`,
    unit: 'MiB/s',
    service: round(best(down.proxy)),
    baseline: round(best(down.sdk)),
    note: floorNote,
    samples: { service: r(down.proxy), baseline: r(down.sdk) },
  });
  record({
    group,
    measure: `S3 upload ${label}, service vs bare proxy`,
    unit: 'MiB/s',
    service: round(best(up.service)),
    baseline: round(best(up.proxy)),
    note: 'informational: what the service costs on top of the floor',
    samples: { service: r(up.service), baseline: r(up.proxy) },
  });
  record({
    group,
    measure: `S3 download ${label}, service vs bare proxy`,
    unit: 'MiB/s',
    service: round(best(down.service)),
    baseline: round(best(down.proxy)),
    note: 'informational: what the service costs on top of the floor',
    samples: { service: r(down.service), baseline: r(down.proxy) },
  });
  record({
    group,
    measure: `CPU s/GiB bare proxy S3 upload ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(up.proxyRss),
    baseline: cpuPerGiB(up.sdkCpu),
    note: 'informational: the bare proxy process; baseline: the bench process running the SDK upload; lower is better',
    samples: { httpClientForProxy: cpuPerGiB(up.clientForProxy), s3rverForProxy: cpuPerGiB(up.s3rverForProxy) },
    detail: { proxy: up.proxyRss, s3rver: up.s3rverForProxy },
  });
  record({
    group,
    measure: `CPU s/GiB bare proxy S3 download ${label}`,
    unit: 's/GiB',
    service: cpuPerGiB(down.proxyRss),
    baseline: cpuPerGiB(down.sdkCpu),
    note: 'informational: the bare proxy process; baseline: the bench process running the SDK download; lower is better',
    samples: { httpClientForProxy: cpuPerGiB(down.clientForProxy), s3rverForProxy: cpuPerGiB(down.s3rverForProxy) },
    detail: { proxy: down.proxyRss, s3rver: down.s3rverForProxy },
  });
}

/** Reads a response body to its end without keeping it; resolves with its length. */
function countAndDiscard(body) {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    body.on('data', (chunk) => {
      bytes += chunk.length;
    });
    body.on('end', () => resolve(bytes));
    body.on('error', reject);
  });
}

// ---------------------------------------------------------------------------- report
function printReport() {
  const header = ['measure', 'service', 'baseline', 'ratio', 'target', ''];
  const lines = rows.map((row) => [
    row.measure,
    String(row.service ?? ''),
    String(row.baseline ?? ''),
    row.ratio === undefined ? '' : row.ratio.toFixed(2),
    row.target ?? '',
    row.pass === undefined ? '' : row.pass ? 'ok' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)];
  process.stdout.write(`\n${out.join('\n')}\n\n`);
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main()
  .catch((error) => {
    process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
    for (const { name, logFile } of children) process.stderr.write(`--- ${name} log (tail):${tail(logFile)}\n`);
    process.exitCode = 1;
  })
  .finally(cleanup)
  // Whatever a failed phase left behind (sockets, timers), the bench ends here.
  .finally(() => process.exit());
