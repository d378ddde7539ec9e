// Investigation aid, preloaded into the service: node --import ./bench/memlog.mjs dist/server/index.js
// (BENCH_SERVICE_NODE_FLAGS="--import=./bench/memlog.mjs"). Appends process.memoryUsage() (MB)
// and the garbage collections since the last line (count and ms, by kind) every
// BENCH_MEMLOG_MS (100) to the file BENCH_MEMLOG.
import fs from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const file = process.env.BENCH_MEMLOG;
if (file) {
  const started = Date.now();
  const mb = (x) => Math.round((x / 1048576) * 10) / 10;
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kinds[entry.detail?.kind] ?? 'other';
      gc[kind] ??= { n: 0, ms: 0 };
      gc[kind].n += 1;
      gc[kind].ms = Math.round((gc[kind].ms + entry.duration) * 10) / 10;
    }
  }).observe({ entryTypes: ['gc'] });
  setInterval(() => {
    const m = process.memoryUsage();
    const line = {
      t: Date.now() - started,
      rss: mb(m.rss),
      heapTotal: mb(m.heapTotal),
      heapUsed: mb(m.heapUsed),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      gc,
    };
    gc = {};
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, Number(process.env.BENCH_MEMLOG_MS) || 100).unref();
}
