// The small phase: small files at BENCH_CONCURRENCY clients (uploads, raw downloads, the share
// page) against the bare servers; the pg and s3 phases run it on their services too.
import { randomBytes } from 'node:crypto';
import { download, runConcurrent, uploadBuffer } from '../client.mjs';
import { assert, log } from '../lib/log.mjs';
import { IDLE_RSS_SECONDS, idleRss } from '../lib/monitor.mjs';
import { record } from '../lib/results.mjs';
import { withAgent } from '../lib/service.mjs';
import { S } from '../lib/settings.mjs';
import { best, median, percentile, round } from '../lib/stats.mjs';
import { measureSharePage } from './share-page.mjs';

/**
 * Small files at BENCH_CONCURRENCY keep-alive clients: uploads, raw downloads and the share
 * page, against the bare servers `bare` (startBareServers) in the same run. The PostgreSQL + S3
 * phase runs it too, `prefix` naming its lines: there the service's files are objects, so the
 * bare download server reads the copies the bare upload server wrote (same sizes and bytes)
 * rather than the service's own files (`bareReadsServiceFiles`). `alsoWatch`: other processes
 * (s3rver) whose CPU during the service's requests goes in the JSON, to see where time goes.
 */
export async function measureSmall({
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

  recordSmall({ prefix, label, up, down, idle, page, alsoWatch, withTargets, bareReadsServiceFiles });
}

/** The lines of the small files: rates, CPU per request, RSS, then the share page's lines. */
function recordSmall({ prefix, label, up, down, idle, page, alsoWatch, withTargets, bareReadsServiceFiles }) {
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
