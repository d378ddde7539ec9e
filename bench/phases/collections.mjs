// The collections phase: "Download all" against a raw download of the same size, the service's
// memory while it streams a larger archive, and the time to first byte of the collection's page.
import fs from 'node:fs';
import { download, requestJson, runConcurrent, timeToFirstByte, uploadFromDisk } from '../client.mjs';
import { largeInput } from '../lib/inputs.mjs';
import { assert, log } from '../lib/log.mjs';
import { IDLE_RSS_SECONDS, idleRss } from '../lib/monitor.mjs';
import { record, results } from '../lib/results.mjs';
import { SET_UP_CLIENTS } from '../lib/service.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { best, elapsedMs, percentile, rotate, round, sizeLabel } from '../lib/stats.mjs';

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
export async function measureCollections({ port, cookie, inputDir, serviceRss: uploadingRss, restart, single }) {
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

  recordCollections({
    label,
    bigLabel,
    count,
    bigCount,
    bytes,
    rate,
    rss,
    archiveBytes,
    bigRate,
    bigRss,
    bigArchiveBytes,
    rest,
    page,
  });
}

/** The lines of the collections phase: rates, CPU per GiB, peaks, then the page's lines. */
function recordCollections({
  label,
  bigLabel,
  count,
  bigCount,
  bytes,
  rate,
  rss,
  archiveBytes,
  bigRate,
  bigRss,
  bigArchiveBytes,
  rest,
  page,
}) {
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
