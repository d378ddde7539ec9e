// The tus phase: resumable uploads against the service's own multipart upload of the same file.
import fs from 'node:fs';
import path from 'node:path';
import { tusUploadFromDisk, uploadFromDisk } from '../client.mjs';
import { largeInput } from '../lib/inputs.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { best, median, rotate, round, sizeLabel } from '../lib/stats.mjs';

// Resumable uploads: the same file over tus (/api/v1/uploads), in one PATCH and in BENCH_TUS_CHUNK_MB
// PATCHes, against the service's own multipart upload of it (POST /api/v1/files) in the same
// run: what the resumable path costs on top of the plain one.
export async function measureTus({ port, cookie, inputDir, uploadDir, serviceRss }) {
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

  recordTus({ label, bytes, chunkLabel, rate, rss, timings });
}

/** The lines of the tus phase: each kind's rate and CPU per GiB, and the higher peak of the two. */
function recordTus({ label, bytes, chunkLabel, rate, rss, timings }) {
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
