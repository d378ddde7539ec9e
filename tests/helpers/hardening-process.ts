// The built server as a child process for the fault tests: a fixed free port, silent logs,
// readiness by polling /healthz (a silent server prints no "listening" line).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, TEST_SECRET } from './app';
import { freePort } from './hardening-http';
import { backendEnv } from './test-backend';
import { CLI_JS, cleanEnv, registerUserCli, SERVER_JS } from './process';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

export interface HardeningServerEnv {
  PORT: string;
  DATA_DIR: string;
  SESSION_SECRET: string;
  LOG_LEVEL: string;
  [name: string]: string;
}

/** A server's environment on the run's backend (a fresh database and bucket on PostgreSQL + S3). */
export async function serverEnv(dataDir: string): Promise<HardeningServerEnv> {
  return {
    ...(await backendEnv()),
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    SESSION_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
  };
}

/** Fails with a clear message when the build the fault tests spawn is missing. */
export function requireDist(): void {
  for (const file of [SERVER_JS, CLI_JS, path.join(ROOT, 'build/index.js')]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` first`);
  }
}

/** `echo <password> | node dist/cli/register-user.js <username> --password-stdin`. */
export async function registerWithCli(env: HardeningServerEnv, username: string, password: string) {
  return registerUserCli([username, '--password-stdin'], { env, input: `${password}\n` });
}

/** Logs in over HTTP and returns the Cookie header value (`token=…`). */
export async function loginCookie(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status}`);
  return res.headers.getSetCookie()[0].split(';')[0];
}

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
}

/** Every server this process spawned, so that a test that fails mid-start leaves no orphan. */
const spawned = new Set<ChildProcess>();

/** SIGKILL to every spawned server still running (for afterEach/afterAll). */
export function killAllSpawned(): void {
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** `node <SERVER_NODE_FLAGS> dist/server/index.js` with exactly `env`; resolves once /healthz answers 200. */
export async function spawnServer(env: HardeningServerEnv): Promise<SpawnedServer> {
  requireDist();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_JS], {
    cwd: ROOT,
    env: cleanEnv({ ...SERVER_ENV, HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering\n${stderr}`);
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /healthz within 30 s\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, stderr: () => stderr, exited };
}

/** kill -9, and wait until the process is really gone. */
export async function killHard(server: SpawnedServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server.exited;
}

/** SIGTERM (graceful), and wait for the exit. */
export async function stopGracefully(server: SpawnedServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
}
