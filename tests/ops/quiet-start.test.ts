// A first `npm start` prints only what matters: no tool's deprecation notice or future-flag
// notice, which a new user reads as errors (ADR 0031). The project is copied without its build
// (node_modules linked), so `npm start` builds it (the pages and the server) and then serves it,
// as on a fresh clone after `npm ci`; the shared build of the checkout is left alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import { cleanEnv } from '../helpers/process';
import { delay, freePort, ROOT } from './support';

/** What a clone holds that `npm run build` reads (the build outputs are not among them). */
const CHECKED_OUT = [
  'app',
  'server',
  'cli',
  'scripts',
  'public',
  'remix.config.js',
  'remix.env.d.ts',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function freshClone(): string {
  const dir = tempDir('fs-quiet-start-');
  dirs.push(dir);
  for (const entry of CHECKED_OUT) {
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), {
      recursive: true,
      // Never the checkout's own build of the assets.
      filter: (source) => !source.startsWith(path.join(ROOT, 'public', 'build')),
    });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** `npm start` in `dir` until /healthz answers, then SIGTERM; everything it printed. */
async function npmStart(dir: string): Promise<{ output: string; healthy: boolean; exit: number | string }> {
  const port = await freePort();
  const dataDir = tempDir('fs-quiet-data-');
  dirs.push(dataDir);
  // NODE_ENV unset, as in a shell after `npm ci`.
  const env = cleanEnv({
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    // Set, as a deployment sets it: without it the service rightly warns that it generated one.
    SESSION_SECRET: 'a session secret of at least thirty-two characters',
  });
  // Its own process group, so that npm, its shell and the server all get the signal.
  const child = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );

  let healthy = false;
  const deadline = Date.now() + 90_000;
  while (!healthy && Date.now() < deadline && child.exitCode === null) {
    await delay(250);
    healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.status === 200,
      () => false,
    );
  }
  process.kill(-child.pid!, 'SIGTERM');
  const exit = await Promise.race([exited, delay(15_000).then(() => 'still running')]);
  if (exit === 'still running') process.kill(-child.pid!, 'SIGKILL');
  return { output, healthy, exit };
}

describe('npm start on a fresh clone', () => {
  it('when it builds and then serves, then it prints no deprecation, future-flag or warning notice', async () => {
    const dir = freshClone();

    const { output, healthy, exit } = await npmStart(dir);

    expect(healthy, output).toBe(true);
    expect(output).toContain('Building');
    expect(fs.existsSync(path.join(dir, 'build/index.js'))).toBe(true);
    expect(output).not.toMatch(/deprecat/i);
    expect(output).not.toMatch(/future flag/i);
    expect(output).not.toMatch(/warn/i);
    // No log line at warning level or above (pino: 40 warn, 50 error).
    const levels = output
      .split('\n')
      .flatMap((line) => /^\{"level":(\d+)/.exec(line)?.[1] ?? [])
      .map(Number);
    expect(levels.length).toBeGreaterThan(0);
    expect(levels.filter((level) => level >= 40)).toEqual([]);
    // npm itself ends by the signal; the server's own clean stop is held by tests/ops/shutdown.test.ts.
    expect(exit).not.toBe('still running');
  }, 150_000);
});
