// The metrics phase: raw downloads of two services side by side, Prometheus metrics on and off.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { download, HOST, runConcurrent, uploadBuffer } from '../client.mjs';
import { assert, log } from '../lib/log.mjs';
import { RssMonitor } from '../lib/monitor.mjs';
import { freePort, stopChild, tmp } from '../lib/processes.mjs';
import { record } from '../lib/results.mjs';
import {
  logIn,
  registerBenchUser,
  SET_UP_CLIENTS,
  serviceEnvFor,
  startService,
  waitForHealth,
  withAgent,
} from '../lib/service.mjs';
import { S } from '../lib/settings.mjs';
import { best, median, percentile, rotate, round } from '../lib/stats.mjs';

const METRICS_TOKEN = randomBytes(24).toString('hex');
/** Files each service of the metrics phase holds (the downloads go round them). */
const METRICS_FILES = 256;

/**
 * What Prometheus metrics (ADR 0049) cost the hot path: two services side by side, each on a
 * data dir of its own holding the same 256 files of BENCH_SMALL_KB, one with METRICS_TOKEN set and one
 * without, serving BENCH_SMALL_DOWNLOADS raw downloads at BENCH_CONCURRENCY clients per run,
 * taking turns first. The line's baseline is the service without metrics.
 */
export async function measureMetricsCost({ logDir }) {
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
