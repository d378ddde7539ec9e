// Helpers for the operations tests: the production server as a real child process
// (`sh scripts/start-server.sh dist/server/index.js`, exactly what the container runs), on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../helpers/app';
import { freePort } from '../helpers/free-port';

export { ROOT, freePort };

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

/**
 * Spawns `sh scripts/start-server.sh dist/server/index.js` (the container's CMD; the script execs
 * node, so the child is the server itself) in `cwd` and waits until /healthz answers 200.
 */
export async function startServer(options: { cwd?: string; env: Record<string, string> }): Promise<ServerProcess> {
  const port = await freePort();
  const env = baseEnv();
  // The script runs `node`: this one, as in the image, where it is the only one.
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH}`;
  const child = spawn('sh', ['scripts/start-server.sh', 'dist/server/index.js'], {
    cwd: options.cwd ?? ROOT,
    env: { ...env, HOST: '127.0.0.1', PORT: String(port), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const server: ServerProcess = { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited };

  const deadline = Date.now() + 20_000;
  for (;;) {
    const ended = await Promise.race([exited, delay(100).then(() => null)]);
    if (ended !== null) throw new Error(`the server exited (${ended}) before it was healthy:\n${output}`);
    try {
      const res = await fetch(`${server.url}/healthz`);
      if (res.status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server was not healthy within 20 s:\n${output}`);
    }
  }
}

/** Stops a server that a failed test left running. */
export function killIfRunning(server: ServerProcess | undefined): void {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
}

/** The exit code, or a rejection when the process is still running after `ms`. */
export function exitWithin(server: ServerProcess, ms: number): Promise<number | string> {
  return Promise.race([
    server.exited,
    delay(ms).then(() => {
      throw new Error(`the server did not exit within ${ms} ms:\n${server.output()}`);
    }),
  ]);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The least environment a child needs. Never the test process's own: vitest puts BASE_URL=/,
 * MODE, DEV… into process.env, and `npm test` adds npm_config_local_prefix & co., which would
 * point a child npm back at the project.
 */
function baseEnv(): NodeJS.ProcessEnv {
  // Production, as in the container (NODE_ENV=production in the Dockerfile).
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', PATH: process.env.PATH ?? '/usr/bin:/bin' };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return env;
}

/** Runs a command to its end in baseEnv() plus `env`; resolves with its exit code and output. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...baseEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    // The command may end before it reads its input: what it did not read is no error.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
