// `npm start` stops as the container's start does: SIGTERM or SIGINT sent to the npm process
// (what a process manager, `kill` or a terminal's Ctrl-C in another setting sends) closes the
// server gracefully, frees its port and ends npm, instead of leaving the server running alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { delay, freePort, ROOT } from './support';

const children: Array<{ kill(signal: NodeJS.Signals): boolean }> = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) {
    // A server a failed run left behind its npm.
    for (const pid of serversOf(dir)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** The pids of every process started with this data folder in its environment. */
function serversOf(dataDir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`DATA_DIR=${dataDir}\0`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('npm start and signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'when %s is sent to the npm start process, then the server closes gracefully, its port is free and nothing is left running',
    async (signal) => {
      const dataDir = tempDir('fs-npm-start-signal-');
      dirs.push(dataDir);
      const port = await freePort();
      // The project's own Node first, as `npm test` has it; npm itself is the machine's.
      const bin = path.join(ROOT, 'node_modules/.bin');
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: ROOT,
        env: {
          PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
          HOME: process.env.HOME ?? dataDir,
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          PORT: String(port),
          SESSION_SECRET: TEST_SECRET,
          LOG_LEVEL: 'info',
          NODE_ENV: 'production',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(npm);
      let output = '';
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | string>((resolve) =>
        npm.once('exit', (code, signalName) => resolve(code ?? signalName ?? 'unknown')),
      );

      const deadline = Date.now() + 60_000;
      while (!output.includes('"msg":"listening"')) {
        if (Date.now() > deadline) throw new Error(`npm start did not listen within 60 s:\n${output}`);
        await delay(100);
      }
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

      npm.kill(signal);
      const ended = await Promise.race([exited, delay(15_000).then(() => 'still running')]);
      expect(ended, output).not.toBe('still running');
      expect(output).toContain('"msg":"stopped"');
      expect(await portRefuses(port)).toBe(true);
      expect(serversOf(dataDir)).toEqual([]);
    },
    90_000,
  );
});
