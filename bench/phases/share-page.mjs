// The share page of one small file against its raw route: part of the small phase.
import { download, fetchText, runConcurrent } from '../client.mjs';
import { assert, log } from '../lib/log.mjs';
import { withAgent } from '../lib/service.mjs';
import { S } from '../lib/settings.mjs';
import { best, percentile, rotate, round } from '../lib/stats.mjs';

/**
 * The server-rendered share page of one small file, fetched without cookie (as a visitor),
 * against the raw route of the same file, BENCH_SMALL_PAGES requests at BENCH_CONCURRENCY
 * clients per run, taking turns first. Every page must be a 200 that names the file.
 * Resolves with its lines (informational: no target).
 */
export async function measureSharePage({ port, file, size, prefix, serviceRss }) {
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
