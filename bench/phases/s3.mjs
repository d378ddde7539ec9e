// PostgreSQL + S3: the service on PostgreSQL with its content in a bucket, against the AWS SDK alone
// moving the same bytes to and from the same S3 server. s3rver is slow (it writes each part
// to its disk and concatenates them on completion), but equally so for both: the ratio is
// what the service costs on top of the SDK. A third contender, the bare proxy
// (bench/bare-s3-proxy.mjs), moves the same bytes through a Node process with nothing else to
// do: on a machine this small, what any process in between costs, service or not, since
// client, proxy and s3rver share its cores.
import fs from 'node:fs';
import path from 'node:path';
import { HOST } from '../client.mjs';
import { largeInput } from '../lib/inputs.mjs';
import { log } from '../lib/log.mjs';
import { RssMonitor } from '../lib/monitor.mjs';
import { freePort, handshakePort, spawnChild, stopChild, stoppers, tmp } from '../lib/processes.mjs';
import { results } from '../lib/results.mjs';
import { bareSdk, S3_BUCKET, S3_KEYS } from '../lib/s3.mjs';
import {
  logIn,
  registerBenchUser,
  serviceEnvFor,
  startBareServers,
  startService,
  waitForHealth,
} from '../lib/service.mjs';
import { S } from '../lib/settings.mjs';
import { round } from '../lib/stats.mjs';
import { startPostgres } from '../postgres-cluster.mjs';
import { postgresBinOrSkip } from './pg.mjs';
import { measureLargeOnS3 } from './s3-large.mjs';
import { measureSmall } from './small.mjs';

export async function measureOnPostgresS3({ inputDir, logDir }) {
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
