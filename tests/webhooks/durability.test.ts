// Deliveries are never lost and never sent twice at once (ADR 0050): the outbox is written with
// each change, so a server killed with deliveries pending sends each once it runs again; two
// instances sharing one outbox send each delivery once. Needs `npm run build` (dist/ and build/).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { registeredUser } from '../helpers/fixtures';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-node-flags.mjs';
import { ROOT } from '../helpers/app';
import { loginCookie, serverEnv } from '../helpers/hardening-process';
import { CLI_JS, cleanEnv, runNode, SERVER_JS } from '../helpers/process';
import { startReceiver, type Receiver } from './receiver';

const PASSWORD = 'pw-long-enough-1';
const receivers: Receiver[] = [];
const servers = new Set<ChildProcess>();

/** The built server as a process of its own, once it answers /healthz (a start may be slow on a busy machine). */
async function spawnServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_JS], {
    cwd: ROOT,
    env: cleanEnv({ ...SERVER_ENV, HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  servers.add(child);
  child.once('exit', () => servers.delete(child));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering`);
    const status = await fetch(`${url}/healthz`).then(
      async (res) => {
        await res.body?.cancel();
        return res.status;
      },
      () => 0,
    );
    if (status === 200) return { url, child };
    if (Date.now() > deadline) throw new Error('server did not answer /healthz');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** SIGKILL, as a crash; resolves once the process is gone. */
function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

function killAllSpawned(): void {
  for (const child of servers) child.kill('SIGKILL');
}
const apps: TestApp[] = [];

afterEach(async () => {
  killAllSpawned();
  for (const app of apps.splice(0)) await app.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
});
afterAll(() => killAllSpawned());

const json = { 'content-type': 'application/json' };

describe('webhook deliveries across crashes and instances', () => {
  it('when the server is killed with deliveries pending and started again, then every one is delivered', async () => {
    // Down at first (503): each delivery is tried, fails and waits for its retry.
    let up = false;
    const receiver = await startReceiver(() => (up ? 200 : 503));
    receivers.push(receiver);
    const env = {
      ...(await serverEnv(tempDir('fs-webhooks-crash-'))),
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_RETRY_BASE_MS: '1000',
    };
    // The CLI may take a while on a busy machine: it runs the migrations of a fresh database.
    const registered = await runNode(CLI_JS, ['una', '--password-stdin'], {
      env,
      input: `${PASSWORD}\n`,
      timeoutMs: 120_000,
    });
    expect(registered.code, registered.stderr).toBe(0);
    let server = await spawnServer(env);
    const cookie = await loginCookie(server.url, 'una', PASSWORD);
    const added = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...json, cookie },
      body: JSON.stringify({ url: receiver.url, events: ['file.uploaded'] }),
    });
    expect(added.status).toBe(201);
    const fileIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const form = new FormData();
      form.append('file', new Blob([`file ${i}`]), `file-${i}.txt`);
      const res = await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
      expect(res.status).toBe(201);
      fileIds.push(((await res.json()) as { file: { id: string } }).file.id);
    }
    await receiver.waitFor(1, undefined, 60_000);
    await killHard(server.child);

    up = true;
    server = await spawnServer(env);
    const delivered = () =>
      receiver.received.filter((entry) => entry.status === 200).map((entry) => entry.json.data.fileId as string);
    await expect.poll(() => new Set(delivered()).size, { timeout: 60_000 }).toBe(5);
    expect([...new Set(delivered())].sort()).toEqual([...fileIds].sort());
    await killHard(server.child);
  }, 300_000);

  it('when an app is closed while a receiver takes a second to answer, then the answer is written first: after a restart the delivery is delivered, sent once', async () => {
    const arrived: string[] = [];
    const slow = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(String(req.headers['x-webhook-id']));
        setTimeout(() => res.writeHead(200).end('ok'), 1000);
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const first = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '50' });
      const wren = await registeredUser(first, 'wren');
      const added = await wren.fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook`,
          events: ['file.uploaded'],
        }),
      });
      expect(added.status).toBe(201);
      const { webhook } = (await added.json()) as { webhook: { id: string } };
      await wren.upload('one', 'one.txt', 'text/plain');
      await expect.poll(() => arrived.length, { timeout: 20_000 }).toBe(1);
      await first.close();

      const again = await startApp({ ...first.env, DATA_DIR: first.dataDir });
      apps.push(again);
      const cookie = await again.login('wren');
      const res = await fetch(`${again.url}/api/v1/webhooks/${webhook.id}/deliveries`, { headers: { cookie } });
      const { deliveries } = (await res.json()) as { deliveries: Array<Record<string, unknown>> };
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ id: arrived[0], status: 'delivered', attempts: 1, lastStatusCode: 200 });
      expect(arrived).toHaveLength(1);
    } finally {
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  }, 120_000);

  it('when two instances share one outbox, then each delivery is sent once, never by both', async () => {
    // Each answer takes a moment, so that both instances are busy sending at the same time.
    const receiver = await startReceiver();
    receivers.push(receiver);
    const first = await startApp({ WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '50' });
    apps.push(first);
    const second = await startApp({ ...first.env, DATA_DIR: first.dataDir });
    apps.push(second);
    const vera = await registeredUser(first, 'vera');
    const added = await vera.fetch('/api/v1/webhooks', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ url: receiver.url, events: ['file.uploaded'] }),
    });
    expect(added.status).toBe(201);
    const uploads = await Promise.all(
      Array.from({ length: 30 }, (_, i) => vera.upload(`file ${i}`, `file-${i}.txt`, 'text/plain')),
    );
    await receiver.waitFor(30, undefined, 60_000);
    // Time for a second sending, were there one.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ids = receiver.received.map((entry) => entry.json.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(new Set(receiver.received.map((entry) => entry.json.data.fileId))).toEqual(
      new Set(uploads.map((upload) => upload.file.id)),
    );
  }, 180_000);
});
