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
// with Prometheus metrics on (METRICS_TOKEN) and one without; adminusers — the admin console's
// accounts (its page and /api/v1/admin/users) with BENCH_ADMIN_USERS users against the same
// requests with the bench's few users.
// The phases' measures are in bench/phases/<phase>.mjs; bench/lib/ holds what they share (the
// settings, the child processes and their clean-up, RSS and CPU, statistics, the service's start
// and login, the input files, the lines of the table). This file runs them in order and reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOST } from './client.mjs';
import { buildIfNeeded } from './lib/build.mjs';
import { log } from './lib/log.mjs';
import { RssMonitor } from './lib/monitor.mjs';
import { children, cleanup, freePort, makeTempDir, stopChild, tail, tmp } from './lib/processes.mjs';
import { results, rows } from './lib/results.mjs';
import {
  loginRequest,
  logIn,
  registerBenchUser,
  serviceEnvFor,
  startBareServers,
  startService,
  waitForHealth,
} from './lib/service.mjs';
import { DISK_PHASES, MiB, S, SEEDED_USERS, wants } from './lib/settings.mjs';
import { round } from './lib/stats.mjs';
import { measureCollections } from './phases/collections.mjs';
import { measureAdminUsers } from './phases/admin-users.mjs';
import { measureFileList } from './phases/filelist.mjs';
import { measureLargeSizes } from './phases/large.mjs';
import { measureList } from './phases/list.mjs';
import { measureLogin } from './phases/login.mjs';
import { measureMetricsCost } from './phases/metrics.mjs';
import { measureOnPostgresDisk } from './phases/pg.mjs';
import { measureOnPostgresS3 } from './phases/s3.mjs';
import { measureSearch } from './phases/search.mjs';
import { measureSmall } from './phases/small.mjs';
import { measureThumbnails } from './phases/thumbnails.mjs';
import { measureTus } from './phases/tus.mjs';

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

  makeTempDir();
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

/**
 * The phases of DISK_PHASES: the service on SQLite + disk against the bare servers, started again
 * between phases where a phase's RSS must not carry what the ones before it left.
 */
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
  log(
    `service pid ${service.child.pid} on ${HOST}:${port}; bare upload :${bare.bareUpPort}, bare download :${bare.bareDownPort}`,
  );

  let serviceRss = new RssMonitor(service.child.pid);
  results.serviceIdleRssMb = round(serviceRss.status().rss);

  // ---- login (also gives the cookie for the rest)
  const doLogin = () => loginRequest(port);
  const cookie = await logIn(port);

  if (wants('login')) await measureLogin(doLogin);
  /** The files the large phase stored, by size in MiB: the collections phase downloads one again. */
  const storedLarge = wants('large')
    ? await measureLargeSizes({ largeSizes, port, cookie, bare, inputDir, bareDir, serviceRss })
    : new Map();
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
  // Last on this service: the 10,000 users it adds would be in every list after it.
  if (wants('adminusers')) await measureAdminUsers({ port, dataDir });

  results.serviceFinalRssMb = round(serviceRss.status().rss);
  // Stopped before any later phase: idle processes are still processes on a 2-core machine.
  await Promise.all([stopChild(current.entry), bare.stop()]);
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
