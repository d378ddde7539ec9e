// The built programs as real child processes: `node dist/server/index.js` and
// `node dist/cli/register-user.js` (what `npm start` and the container run), with an
// environment built from scratch so nothing of the developer's shell leaks in.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './app';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

export const SERVER_JS = path.join(ROOT, 'dist/server/index.js');
export const CLI_JS = path.join(ROOT, 'dist/cli/register-user.js');
export const MOVE_INSTALL_JS = path.join(ROOT, 'dist/cli/move-install.js');
export const TOKENS_JS = path.join(ROOT, 'dist/cli/tokens.js');
export const USERS_JS = path.join(ROOT, 'dist/cli/users.js');

function requireBuilt(file: string): void {
  if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run \`npm run build\` first`);
}

/** A minimal environment: PATH and HOME only, plus what the test sets. */
export function cleanEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // NODE_ENV stays unset unless a test sets it, as with a plain `npm start` (the cast: Remix's
  // globals declare NODE_ENV as always present).
  const result: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
  };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  return result as NodeJS.ProcessEnv;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a built script to its end, feeding `input` on stdin. */
export function runNode(
  script: string,
  args: string[],
  options: { env: Record<string, string | undefined>; input?: string | Buffer; timeoutMs?: number },
): Promise<RunResult> {
  requireBuilt(script);
  return runCommand(process.execPath, [script, ...args], options);
}

/** Runs a command in the checkout to its end, in cleanEnv(env), feeding `input` on stdin. */
export function runCommand(
  command: string,
  args: string[],
  options: { env: Record<string, string | undefined>; input?: string | Buffer; timeoutMs?: number },
): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 25_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      const name = command === process.execPath ? path.basename(args[0]) : [command, ...args].join(' ');
      reject(new Error(`${name} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {}); // the program may exit before reading everything
    child.stdin.end(options.input ?? '');
  });
}

/** `node dist/cli/register-user.js …` with the password piped in. */
export function registerUserCli(
  args: string[],
  options: { env: Record<string, string | undefined>; input?: string | Buffer },
): Promise<RunResult> {
  return runNode(CLI_JS, args, options);
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Every line the process wrote to stdout so far. */
  stdoutLines(): string[];
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL if still running (for afterEach). */
  kill(): void;
}

/**
 * Starts `node <SERVER_NODE_FLAGS> dist/server/index.js` on a kernel-chosen port and waits for
 * its "listening" line; `as` runs it as another user (the tests run as root, whom file modes
 * do not stop).
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  as?: { uid: number; gid: number },
): Promise<ServerProcess> {
  requireBuilt(SERVER_JS);
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_JS], {
    cwd: ROOT,
    env: cleanEnv({ ...SERVER_ENV, HOST: '127.0.0.1', PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s\n${stdout}\n${stderr}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n')) {
        if (!line.includes('"listening"')) continue;
        clearTimeout(timer);
        resolve(JSON.parse(line).port as number);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening\n${stdout}\n${stderr}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stdoutLines: () => stdout.split('\n').filter(Boolean),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
