// The bench's child processes and its temporary folder: started here, and always stopped and
// removed, also on failure and on a signal.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HOST } from '../client.mjs';
import { ROOT, S } from './settings.mjs';

export const children = new Set();
/** The run's temporary folder (inputs, data, logs), removed by cleanup(); null outside a run. */
export let tmp = null;

/** Makes the run's temporary folder under $TMPDIR. */
export function makeTempDir() {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-bench-'));
}

/** Synchronous stops of what is not our child process (the PostgreSQL cluster daemonizes). */
export const stoppers = new Set();

function runStoppers() {
  for (const stop of stoppers) {
    stoppers.delete(stop);
    try {
      stop();
    } catch (error) {
      process.stderr.write(`bench: cleanup: ${error?.message ?? error}\n`);
    }
  }
}

export function spawnChild(name, command, args, { env: childEnv = {}, logDir, handshake = false }) {
  const logFile = path.join(logDir, `${name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...childEnv },
    // The service logs straight into its file; the bare servers print their port first.
    stdio: ['ignore', handshake ? 'pipe' : out, out],
  });
  fs.closeSync(out);
  const entry = { name, child, logFile, exited: false };
  children.add(entry);
  child.on('exit', () => {
    entry.exited = true;
  });
  // Everything the child prints goes to its log; the first line is kept for the port handshake.
  const firstLine = new Promise((resolve, reject) => {
    if (!handshake) return resolve('');
    let buffer = '';
    const log = fs.createWriteStream(logFile, { flags: 'a' });
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      if (buffer !== null) {
        buffer += chunk.toString('utf8');
        const newline = buffer.indexOf('\n');
        if (newline >= 0) {
          resolve(buffer.slice(0, newline));
          buffer = null;
        }
      }
    });
    child.stdout.on('end', () => log.end());
    child.on('exit', (code) => reject(new Error(`${name} exited with code ${code} (log: ${tail(logFile)})`)));
  });
  firstLine.catch(() => undefined);
  return { ...entry, entry, firstLine };
}

export async function stopChild(entry, timeoutMs = 15_000) {
  if (entry.exited) return;
  entry.child.kill('SIGTERM');
  const exited = new Promise((resolve) => entry.child.once('exit', resolve));
  const timer = new Promise((resolve) => setTimeout(resolve, timeoutMs, 'timeout'));
  if ((await Promise.race([exited, timer])) === 'timeout' && !entry.exited) {
    entry.child.kill('SIGKILL');
    await exited;
  }
  children.delete(entry);
}

export async function cleanup() {
  await Promise.all([...children].map((entry) => stopChild(entry, 5_000)));
  runStoppers();
  if (tmp) {
    if (S.keepLogsDir) fs.cpSync(path.join(tmp, 'logs'), S.keepLogsDir, { recursive: true });
    fs.rmSync(tmp, { recursive: true, force: true });
    tmp = null;
  }
}

// Last resort on an abrupt exit: nothing asynchronous runs here.
process.on('exit', () => {
  for (const { child, exited } of children) if (!exited) child.kill('SIGKILL');
  runStoppers();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    process.stderr.write(`\nbench: ${signal}, cleaning up\n`);
    cleanup().finally(() => process.exit(130));
  });
}

export function tail(file, lines = 15) {
  try {
    return `\n${fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')}`;
  } catch {
    return '(no log)';
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The port a helper server prints as its first line ({"port":N}). */
export const handshakePort = async (proc) => JSON.parse(await proc.firstLine).port;
