// The large phase: one file per size (BENCH_MEDIUM_MB, BENCH_LARGE_MB, BENCH_HUGE_MB) uploaded and
// downloaded by the service and by the bare servers, and whether its peak grows with the file.
import fs from 'node:fs';
import path from 'node:path';
import { download, uploadFromDisk } from '../client.mjs';
import { largeInput } from '../lib/inputs.mjs';
import { assert, log } from '../lib/log.mjs';
import { record, rows } from '../lib/results.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { best, rotate, round, sizeLabel } from '../lib/stats.mjs';

/**
 * Each of `largeSizes` (MiB) in turn against the bare servers `bare` (startBareServers), then the
 * growth of the peak from the smallest size to the largest. Resolves with the stored files by size.
 */
export async function measureLargeSizes({ largeSizes, port, cookie, bare, inputDir, bareDir, serviceRss }) {
  const { bareUpPort, bareDownPort, bareUpRss, bareDownRss } = bare;
  const storedLarge = new Map();
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
  return storedLarge;
}

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

  recordLarge({ mb, label, bytes, up, down });
  return stored;
}

/** The lines of one size: rates, CPU per GiB and peak RSS of both directions. */
function recordLarge({ mb, label, bytes, up, down }) {
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
}
