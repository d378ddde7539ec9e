// Graceful shutdown on the real process: SIGTERM in the middle of a slow upload
// lets that upload finish, refuses new connections, closes the database and exits 0.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_SECRET, tempDir } from '../helpers/app';
import { startServerProcess } from '../helpers/process';
import { openRequest } from '../helpers/raw-http';
import { delay, exitWithin, killIfRunning, run, startServer, type ServerProcess } from './support';

const PASSWORD = 'a long passphrase';

let server: ServerProcess | undefined;
let dataDir: string | undefined;

afterEach(() => {
  killIfRunning(server);
  server = undefined;
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function startWithUser(): Promise<{ server: ServerProcess; cookie: string; env: Record<string, string> }> {
  dataDir = tempDir('fs-shutdown-');
  const env = { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'production' };
  const created = await run(process.execPath, ['dist/cli/register-user.js', 'u', '--password-stdin'], {
    env,
    input: `${PASSWORD}\n`,
  });
  expect(created.code, created.stderr).toBe(0);
  server = await startServer({ env });
  const res = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'u', password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('token='))!
    .split(';')[0];
  return { server, cookie, env };
}

/** Resolves with the error code of a fresh TCP connection attempt, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('graceful shutdown', () => {
  it('when SIGTERM arrives mid-upload, then the upload still gets 201 and its file, new connections are refused, and the process exits 0 within 10 s', async () => {
    const { server, cookie } = await startWithUser();

    const boundary = '----ops-shutdown-boundary';
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const chunks = 15; // written every 100 ms: about 1.5 s of upload
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const contentLength = head.length + chunk.length * chunks + tail.length;

    // A keep-alive connection, as browsers use: it must not hold the shutdown up once answered.
    const agent = new http.Agent({ keepAlive: true });
    const { request, answer: response } = openRequest(`${server.url}/api/v1/files`, {
      method: 'POST',
      agent,
      headers: {
        cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(contentLength),
      },
    });

    request.write(head);
    let signalledAt = 0;
    let afterSignal = '';
    for (let i = 0; i < chunks; i++) {
      request.write(chunk);
      await delay(100);
      if (i === 4) {
        server.child.kill('SIGTERM');
        signalledAt = Date.now();
        // The listener closes as soon as the signal is handled (give a loaded machine 2 s).
        for (const started = Date.now(); Date.now() - started < 2_000; await delay(50)) {
          afterSignal = await tryConnect(server.port);
          if (afterSignal !== 'connected') break;
        }
      }
    }
    request.end(tail);

    const answer = await response;
    expect(answer.status, answer.text).toBe(201);
    const { file } = JSON.parse(answer.text) as { file: { storedName: string; size: number } };
    expect(file.size).toBe(chunk.length * chunks);
    const stored = path.join(dataDir!, 'uploads', file.storedName);
    expect(fs.statSync(stored).size).toBe(chunk.length * chunks);
    expect(fs.readdirSync(path.join(dataDir!, 'uploads', '.incomplete'))).toEqual([]);

    // Refused, or reset when the attempt reached the kernel's queue just as the listener closed:
    // either way no new connection is served.
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(afterSignal);
    const answeredAt = Date.now();
    expect(await exitWithin(server, Math.max(0, 10_000 - (Date.now() - signalledAt)))).toBe(0);
    // The answer closed its keep-alive connection: the exit did not wait for Node's 5 s idle timeout.
    expect(Date.now() - answeredAt).toBeLessThan(3_000);
    expect(server.output()).not.toMatch(/grace period over/);
    agent.destroy();
  }, 40_000);

  it('when SIGTERM arrives mid-download on a keep-alive connection, then the download completes and the process exits 0 right after', async () => {
    const { server, cookie } = await startWithUser();
    const size = 24 * 1024 * 1024;
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(size, 'y')]), 'big.bin');
    const uploaded = await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
    expect(uploaded.status).toBe(201);
    const { file } = (await uploaded.json()) as { file: { id: string } };

    const agent = new http.Agent({ keepAlive: true });
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${server.url}/f/${file.id}/raw`, { agent }, resolve).once('error', reject),
    );
    expect(res.statusCode).toBe(200);
    res.pause(); // a slow reader: the server cannot finish before we read
    server.child.kill('SIGTERM');
    await delay(500);
    expect(server.child.exitCode, 'still serving the download').toBeNull();
    let received = 0;
    res.on('data', (chunk: Buffer) => (received += chunk.length));
    const complete = new Promise<boolean>((resolve) => {
      res.once('end', () => resolve(true));
      res.once('close', () => resolve(res.complete));
    });
    res.resume(); // explicitly paused: a 'data' listener alone does not resume it
    expect(await complete, 'the download was cut').toBe(true);
    const endedAt = Date.now();
    expect(received).toBe(size);
    expect(await exitWithin(server, 8_000)).toBe(0);
    expect(Date.now() - endedAt).toBeLessThan(3_000);
    agent.destroy();
  }, 40_000);

  it('when SIGTERM arrives while idle keep-alive connections are open, then the process exits 0 at once', async () => {
    const { server, cookie } = await startWithUser();
    // A keep-alive client that stays connected after its request.
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      http
        .get(`${server.url}/api/v1/files`, { agent, headers: { cookie } }, (res) => {
          res.resume();
          res.once('end', resolve);
        })
        .once('error', reject);
    });
    const started = Date.now();
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 5_000)).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    agent.destroy();
  }, 40_000);

  it('when the upload is written after SIGTERM and the database closes, then the record is there on the next start', async () => {
    const { server, cookie, env } = await startWithUser();
    const form = new FormData();
    form.append('file', new Blob(['kept across restarts']), 'kept.txt');
    const uploaded = await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
    expect(uploaded.status).toBe(201);
    const { file } = (await uploaded.json()) as { file: { id: string } };
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10_000)).toBe(0);

    const again = await startServer({ env });
    try {
      const login = await fetch(`${again.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'u', password: PASSWORD }),
      });
      const newCookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith('token='))!
        .split(';')[0];
      const list = await fetch(`${again.url}/api/v1/files`, { headers: { cookie: newCookie } });
      const { files } = (await list.json()) as { files: { id: string }[] };
      expect(files.map((f) => f.id)).toEqual([file.id]);
      again.child.kill('SIGTERM');
      expect(await exitWithin(again, 10_000)).toBe(0);
    } finally {
      killIfRunning(again);
    }
  }, 40_000);
});

describe('SIGTERM right after start', () => {
  it('when SIGTERM arrives the moment the "listening" line is printed, then the close is still graceful: exit 0, every time', async () => {
    // The line is the readiness signal orchestrators and these tests wait for: the handlers must exist by then.
    for (let i = 0; i < 8; i++) {
      const server = await startServerProcess({ DATA_DIR: tempDir('fs-sigterm-'), SESSION_SECRET: TEST_SECRET });
      expect(await server.stop(), server.stderr()).toBe(0);
      expect(server.stdoutLines().some((line) => line.includes('"stopped"'))).toBe(true);
    }
  }, 120_000);
});
