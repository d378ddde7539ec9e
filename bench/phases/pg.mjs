// The pg phase: the small-file lines on PostgreSQL, against the same bare servers as on SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { HOST } from '../client.mjs';
import { log } from '../lib/log.mjs';
import { RssMonitor } from '../lib/monitor.mjs';
import { freePort, stopChild, stoppers, tmp } from '../lib/processes.mjs';
import { record, results } from '../lib/results.mjs';
import {
  logIn,
  registerBenchUser,
  serviceEnvFor,
  startBareServers,
  startService,
  waitForHealth,
} from '../lib/service.mjs';
import { round } from '../lib/stats.mjs';
import { postgresBin, startPostgres } from '../postgres-cluster.mjs';
import { measureSmall } from './small.mjs';

/** Debian's PostgreSQL binaries, or null with the phase recorded as skipped. */
export function postgresBinOrSkip(phase, group, measure) {
  const bin = postgresBin();
  if (!bin) {
    const reason = 'no PostgreSQL binaries in /usr/lib/postgresql/<version>/bin (apt-get install -y postgresql)';
    log(`${phase}: skipped: ${reason}`);
    record({ group, measure, service: 'skipped', note: `skipped: ${reason}` });
  }
  return bin;
}

/**
 * The small-file lines on PostgreSQL: the service on a PostgreSQL database and its local
 * folder, against the same bare servers as the disk phase (the bare download server reads the
 * service's own files), so the database is the one difference from the disk phase.
 */
export async function measureOnPostgresDisk({ logDir }) {
  const bin = postgresBinOrSkip('pg', 'pg', 'PostgreSQL phase');
  if (!bin) return;
  log(`pg: starting PostgreSQL (${bin})`);
  const postgres = startPostgres({ bin, port: await freePort() });
  stoppers.add(postgres.stop);
  try {
    postgres.createDatabase('bench_pg');
    const port = await freePort();
    const dataDir = path.join(tmp, 'data-pg');
    const bareDir = path.join(tmp, 'bare-uploads-pg');
    for (const dir of [dataDir, bareDir]) fs.mkdirSync(dir, { recursive: true });
    const serviceEnv = serviceEnvFor({ port, dataDir, maxMb: 1, extra: { DATABASE_URL: `${postgres.url}/bench_pg` } });
    registerBenchUser(serviceEnv);
    const service = startService('service-pg', serviceEnv, logDir);
    const [bare] = await Promise.all([
      startBareServers({ logDir, uploadDir: bareDir, downloadDir: path.join(dataDir, 'uploads'), nameSuffix: '-pg' }),
      waitForHealth(port, service.entry),
    ]);
    log(
      `pg: service pid ${service.child.pid} on ${HOST}:${port}, ${postgres.url}/bench_pg; bare upload :${bare.bareUpPort}, bare download :${bare.bareDownPort}`,
    );
    const serviceRss = new RssMonitor(service.child.pid);
    results.pgServiceIdleRssMb = round(serviceRss.status().rss);
    const cookie = await logIn(port);
    await measureSmall({ port, cookie, bare, serviceRss, prefix: 'pg ' });
    results.pgServiceFinalRssMb = round(serviceRss.status().rss);
    await Promise.all([stopChild(service.entry), bare.stop()]);
  } finally {
    stoppers.delete(postgres.stop);
    postgres.stop();
  }
}
