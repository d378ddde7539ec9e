// The service and its bare baselines as child processes: their environment, the bench users,
// the start, the health check and the login.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { HOST, requestJson } from '../client.mjs';
import { assert, log } from './log.mjs';
import { RssMonitor } from './monitor.mjs';
import { handshakePort, spawnChild, stopChild, tail } from './processes.mjs';
import { MiB, PASSWORD, ROOT, S, SECRET } from './settings.mjs';

/**
 * The two baselines, each a child process: busboy → disk into `uploadDir` (fsync per request
 * with ?fsync=1) and stat + createReadStream from `downloadDir`. Resolves once both listen.
 */
export async function startBareServers({ logDir, uploadDir, downloadDir, nameSuffix = '' }) {
  const bareUp = spawnChild(`bare-upload${nameSuffix}`, process.execPath, ['bench/bare-upload-server.mjs', uploadDir], {
    logDir,
    handshake: true,
  });
  const bareDown = spawnChild(
    `bare-download${nameSuffix}`,
    process.execPath,
    ['bench/bare-download-server.mjs', downloadDir],
    { logDir, handshake: true },
  );
  const [bareUpPort, bareDownPort] = await Promise.all([handshakePort(bareUp), handshakePort(bareDown)]);
  return {
    bareUpPort,
    bareDownPort,
    bareUpRss: new RssMonitor(bareUp.child.pid),
    bareDownRss: new RssMonitor(bareDown.child.pid),
    stop: () => Promise.all([bareUp.entry, bareDown.entry].map((entry) => stopChild(entry))),
  };
}

/** The service's environment; `extra` adds or overrides (the PostgreSQL + S3 settings). */
export function serviceEnvFor({ port, dataDir, maxMb, extra = {} }) {
  return {
    PORT: String(port),
    HOST,
    BASE_URL: `http://${HOST}:${port}`,
    DATA_DIR: dataDir,
    SESSION_SECRET: SECRET,
    MAX_UPLOAD_BYTES: String(maxMb * MiB + 16 * MiB),
    LOG_LEVEL: S.logLevel,
    NODE_ENV: 'production',
    ...extra,
  };
}

/** A user, through the CLI as an operator would, in the database `serviceEnv` points at. */
export function registerBenchUser(serviceEnv, username = 'bench') {
  log(`registering the user ${username}`);
  execFileSync(process.execPath, ['dist/cli/register-user.js', username, '--password-stdin'], {
    cwd: ROOT,
    env: { ...process.env, ...serviceEnv },
    input: `${PASSWORD}\n`,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
}

/** The built service as in production (its node flags and environment), plus the bench's profiling flags. */
export function startService(name, serviceEnv, logDir) {
  const nodeFlags = [
    ...SERVER_NODE_FLAGS,
    ...(S.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${S.cpuProfDir}`] : []),
    ...S.serviceNodeFlags,
  ];
  return spawnChild(name, process.execPath, [...nodeFlags, 'dist/server/index.js'], {
    env: { ...SERVER_ENV, ...serviceEnv, ...S.serviceEnv },
    logDir,
  });
}

export const loginRequest = (port, username = 'bench') =>
  requestJson({ port, path: '/api/v1/auth/login', method: 'POST', json: { username, password: PASSWORD } });

/** Logs the bench user (or another) in; resolves with the `token=…` cookie. */
export async function logIn(port, username = 'bench') {
  const res = await loginRequest(port, username);
  assert(res.status === 200, `login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = [res.headers['set-cookie']]
    .flat()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('token='));
  assert(cookie, 'no token cookie after login');
  return cookie;
}

export async function waitForHealth(port, entry) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (entry.exited) throw new Error(`the service exited during start: ${tail(entry.logFile)}`);
    try {
      const res = await requestJson({ port, path: '/healthz' });
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service did not become healthy: ${tail(entry.logFile)}`);
}

/** Uploads at once while a collection's files are put in place (set-up, not measured). */
export const SET_UP_CLIENTS = 4;

/** A keep-alive agent for one series of requests, closed after it: the clients leave, as real ones do. */
export async function withAgent(fn) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.concurrency });
  try {
    return await fn(agent);
  } finally {
    agent.destroy();
  }
}
