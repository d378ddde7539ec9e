// The server's log as a person reads it: on a terminal (`npm start` by hand) readable lines with
// the time and the level first; piped (a container's log collector, a file, `| jq`) one JSON
// object a line. The warning about a generated session secret is said when the secret is made,
// not again at the starts that reuse it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import { delay, freePort, ROOT } from './support';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';

const hasScript = spawnSync('script', ['--version']).status === 0;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Starts the built server on `dataDir` (without SESSION_SECRET) until it listens, stops it with
 * SIGINT, and returns what it printed; on a pseudo-terminal (util-linux `script`) or piped.
 */
async function runServer(dataDir: string, onTerminal: boolean): Promise<string> {
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...SERVER_ENV,
    NODE_ENV: 'production' as const,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
  };
  const server = [process.execPath, ...SERVER_NODE_FLAGS, 'dist/server/index.js'];
  const child = onTerminal
    ? spawn('script', ['-qec', server.map((part) => `"${part}"`).join(' '), '/dev/null'], { cwd: ROOT, env })
    : spawn(server[0], server.slice(1), { cwd: ROOT, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('close', resolve));
  const deadline = Date.now() + 30_000;
  while (!/listening/.test(output)) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not listen within 30 s:\n${output}`);
    }
    await delay(100);
  }
  (await fetch(`http://127.0.0.1:${port}/healthz`)).body?.cancel();
  if (onTerminal) child.stdin.write('\x03');
  else child.kill('SIGINT');
  await Promise.race([exited, delay(15_000)]);
  return output;
}

describe('the log on a terminal and piped', () => {
  it.skipIf(!hasScript)(
    'when the server runs on a terminal, then its lines are readable text with the time and level first, never JSON',
    async () => {
      const dataDir = tempDir('fs-terminal-log-');
      dirs.push(dataDir);
      // Without the colours' escape sequences (ESC [ … m).
      const output = (await runServer(dataDir, true)).replace(
        new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'),
        '',
      );
      // The terminal echoes the Ctrl-C that stops it ("^C") in front of the next line.
      const lines = output
        .split(/\r?\n/)
        .map((line) => line.replace(/^\^C/, ''))
        .filter((line) => /\b(INFO|WARN)\b/.test(line));
      expect(lines.length, output).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\] (INFO|WARN): /);
      expect(output).toMatch(/INFO: listening/);
      expect(output).not.toMatch(/^\{"level"/m);
    },
    60_000,
  );

  it('when the server runs with its output piped, then every line is one JSON object', async () => {
    const dataDir = tempDir('fs-piped-log-');
    dirs.push(dataDir);
    const output = await runServer(dataDir, false);
    const lines = output.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((line) => JSON.parse(line).msg)).toContain('listening');
  }, 60_000);

  it('when the server starts twice on one DATA_DIR without SESSION_SECRET, then the generated secret is announced at the first start only', async () => {
    const dataDir = tempDir('fs-secret-once-');
    dirs.push(dataDir);
    const first = await runServer(dataDir, false);
    const second = await runServer(dataDir, false);
    const announced = (output: string) =>
      output
        .split('\n')
        .filter(Boolean)
        .filter((line) => JSON.parse(line).msg.startsWith('SESSION_SECRET is not set'));
    expect(announced(first)).toHaveLength(1);
    expect(JSON.parse(announced(first)[0]).level).toBe(40);
    expect(announced(second)).toEqual([]);
  }, 60_000);
});
