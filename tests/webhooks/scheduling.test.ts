// Deliveries to one endpoint never delay another's (ADR 0057): an endpoint that takes the
// connection and never answers holds its own few slots until the timeout, nothing more.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test as base } from '../helpers/fixtures';
import type { TestUser } from '../helpers/fixtures';
import { startReceiver } from './receiver';

const test = base.override('appEnv', { WEBHOOK_ALLOW_PRIVATE: 'on' });

/** An HTTP server on 127.0.0.1 that takes every request and never answers it. */
async function startSilentServer() {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req) => {
    requests.push(req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function addWebhook(user: TestUser, url: string) {
  const res = await user.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['file.uploaded'] }),
  });
  expect(res.status).toBe(201);
}

describe('webhook deliveries of several endpoints', () => {
  test("when one user's endpoint never answers and 200 deliveries wait for it, then another user's delivery arrives within 5 s", async ({
    app,
    alice,
    bob,
  }) => {
    const silent = await startSilentServer();
    const receiver = await startReceiver();
    try {
      await addWebhook(alice, silent.url);
      for (let i = 0; i < 200; i += 20)
        await Promise.all(
          Array.from({ length: 20 }, (_, j) => alice.upload(`file ${i + j}`, `file-${i + j}.txt`, 'text/plain')),
        );
      const [{ pending }] = await app.rows(
        "select count(*) as pending from webhook_deliveries where status = 'pending' and type = 'file.uploaded'",
      );
      expect(Number(pending)).toBe(200);
      // The deliverer is busy with the silent endpoint.
      await expect.poll(() => silent.requests.length).toBeGreaterThan(0);

      await addWebhook(bob, receiver.url);
      const { file } = await bob.upload('on time', 'on-time.txt', 'text/plain');
      const [delivery] = await receiver.waitFor(1, 'file.uploaded', 5_000);
      expect(delivery.json.data.fileId).toBe(file.id);
    } finally {
      await silent.close();
      await receiver.close();
    }
  }, 60_000);
});
