// The large file of the s3 phase: the service on PostgreSQL + S3 against the AWS SDK alone and
// against the bare proxy, to and from the same s3rver.
import fs from 'node:fs';
import { download, uploadFromDisk } from '../client.mjs';
import { assert, log } from '../lib/log.mjs';
import { record } from '../lib/results.mjs';
import { countAndDiscard, ownCpuSince, S3_BUCKET, S3_PART_BYTES, S3_QUEUE_SIZE } from '../lib/s3.mjs';
import { MiB, S } from '../lib/settings.mjs';
import { best, elapsedMs, rotate, round, sizeLabel } from '../lib/stats.mjs';

export async function measureLargeOnS3({ port, cookie, sdk, input, serviceRss, s3rverRss, proxy }) {
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

  await downloadFromS3({ port, sdk, serviceRss, s3rverRss, proxy, stored, bytes, label, runs, down });
  recordLargeOnS3({ label, bytes, up, down });
  recordBareProxy({ label, bytes, up, down });
}

/** The download runs of the large file, the three contenders taking turns first, into `down`. */
async function downloadFromS3({ port, sdk, serviceRss, s3rverRss, proxy, stored, bytes, label, runs, down }) {
  const mibPerS = (ms) => bytes / MiB / (ms / 1000);
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
}

/** The service against the SDK alone: rates, CPU per GiB (s3rver's too) and peak RSS. */
function recordLargeOnS3({ label, bytes, up, down }) {
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
}

/** The bare proxy: how close any process between the client and s3rver can come to the SDK. */
function recordBareProxy({ label, bytes, up, down }) {
  const r = (xs) => xs.map((x) => round(x));
  const group = `pg+s3 ${label}`;
  const cpuPerGiB = (xs) => round(Math.min(...xs.map((x) => x.cpuS)) / (bytes / (1024 * MiB)), 2);
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
