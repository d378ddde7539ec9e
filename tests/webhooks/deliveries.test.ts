// Webhooks (ADR 0050): signed JSON deliveries of file events, retried until a 2xx comes.
import { describe, expect, test as base } from '../helpers/fixtures';
import type { TestUser } from '../helpers/fixtures';
import { signatureIsValid, startReceiver, type Receiver } from './receiver';

const test = base
  .override('appEnv', { WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '50' })
  // The sweep of expired links every 200 ms, so that it finds the used-up link within the test.
  .override('appOptions', { expirySweepEveryMs: 200 });

async function addWebhook(user: TestUser, url: string, events: string[]) {
  const res = await user.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { webhook: { id: string }; secret: string };
}

async function removeWebhook(user: TestUser, id: string) {
  expect((await user.fetch(`/api/v1/webhooks/${id}`, { method: 'DELETE' })).status).toBe(200);
}

describe('webhook deliveries', () => {
  let receiver: Receiver;
  base.afterEach(async () => {
    await receiver?.close();
  });

  test('when a file is uploaded, then the endpoint gets a signed file.uploaded event with its id, name, size and share URL', async ({
    alice,
  }) => {
    receiver = await startReceiver();
    const { webhook, secret } = await addWebhook(alice, receiver.url, ['file.uploaded']);
    expect(secret).toMatch(/^whsec_/);
    const { file, url } = await alice.upload('hello webhooks', 'notes.txt', 'text/plain');
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.json).toEqual({
      id: delivery.headers['x-webhook-id'],
      type: 'file.uploaded',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: { fileId: file.id, name: 'notes.txt', size: 14, mimeType: 'text/plain', shareUrl: url },
    });
    expect(signatureIsValid(delivery, secret)).toBe(true);
    expect(signatureIsValid(delivery, `${secret}x`)).toBe(false);
    expect(delivery.body).not.toContain(secret);
    const list = await (await alice.fetch('/api/v1/webhooks')).json();
    expect(JSON.stringify(list)).not.toContain(secret);
    await removeWebhook(alice, webhook.id);
  });

  test('when the receiver fails three times, then the fourth attempt delivers the same id, and the list says delivered after 4 attempts', async ({
    alice,
  }) => {
    receiver = await startReceiver((nth) => (nth <= 3 ? 500 : 204));
    const { webhook, secret } = await addWebhook(alice, receiver.url, ['file.uploaded']);
    await alice.upload('retry me', 'retry.txt', 'text/plain');
    const deliveries = await receiver.waitFor(4);
    expect(deliveries.map((entry) => entry.status)).toEqual([500, 500, 500, 204]);
    expect(new Set(deliveries.map((entry) => entry.json.id)).size).toBe(1);
    expect(new Set(deliveries.map((entry) => entry.body)).size).toBe(1);
    for (const entry of deliveries) expect(signatureIsValid(entry, secret)).toBe(true);
    await expect
      .poll(async () => (await (await alice.fetch(`/api/v1/webhooks/${webhook.id}/deliveries`)).json()).deliveries)
      .toEqual([
        expect.objectContaining({
          id: deliveries[0].json.id,
          type: 'file.uploaded',
          status: 'delivered',
          attempts: 4,
          lastStatusCode: 204,
          nextAttemptAt: null,
        }),
      ]);
    await removeWebhook(alice, webhook.id);
  });

  test('when a link is downloaded twice and the file deleted, then file.downloaded comes with first true then false, and file.deleted after', async ({
    alice,
  }) => {
    receiver = await startReceiver();
    const { webhook } = await addWebhook(alice, receiver.url, ['file.downloaded', 'file.deleted']);
    const { file, url } = await alice.upload('download me', 'twice.txt', 'text/plain');
    expect((await fetch(`${url}/raw`)).status).toBe(200);
    const [first] = await receiver.waitFor(1, 'file.downloaded');
    expect(first.json.data).toMatchObject({ fileId: file.id, first: true, count: 1, downloads: 1 });
    expect((await fetch(`${url}/raw`)).status).toBe(200);
    const downloads = await receiver.waitFor(2, 'file.downloaded');
    expect(downloads[1].json.data).toMatchObject({ fileId: file.id, first: false, count: 1, downloads: 2 });
    expect((await alice.fetch(`/api/v1/files/${file.id}`, { method: 'DELETE' })).status).toBe(200);
    const [deleted] = await receiver.waitFor(1, 'file.deleted');
    expect(deleted.json.data).toMatchObject({ fileId: file.id, name: 'twice.txt' });
    expect(receiver.received.filter((entry) => entry.json.type === 'file.uploaded')).toEqual([]);
    await removeWebhook(alice, webhook.id);
  });

  test('when a link with one download is used up, then file.expired comes once, though both the request and the sweep find it', async ({
    app,
    alice,
  }) => {
    receiver = await startReceiver();
    const { webhook } = await addWebhook(alice, receiver.url, ['file.expired']);
    const { file, url } = await alice.upload('once', 'once.txt', 'text/plain', { maxDownloads: '1' });
    expect((await fetch(`${url}/raw`)).status).toBe(200);
    expect((await fetch(`${url}/raw`)).status).toBe(410);
    const [expired] = await receiver.waitFor(1, 'file.expired');
    expect(expired.json.data).toMatchObject({ fileId: file.id, name: 'once.txt' });
    // The sweep removes it once its download's claim has run out (ADR 0056; moved back six hours
    // here), then the link is a 404, and tells nobody again.
    await app.rows('update files set last_download_at = ? where id = ?', [
      new Date(Date.now() - 7 * 3600_000),
      file.id,
    ]);
    await expect.poll(async () => (await fetch(`${url}/raw`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    await removeWebhook(alice, webhook.id);
  });

  test("when bob asks for alice's webhook, its deliveries or a resend, then each is a 404, and his list is empty", async ({
    alice,
    bob,
  }) => {
    receiver = await startReceiver();
    const { webhook } = await addWebhook(alice, receiver.url, ['file.uploaded']);
    await alice.upload('mine', 'mine.txt', 'text/plain');
    const [delivery] = await receiver.waitFor(1);
    const deliveryId = delivery.json.id;
    expect((await bob.fetch(`/api/v1/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
    expect(
      (await bob.fetch(`/api/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/resend`, { method: 'POST' })).status,
    ).toBe(404);
    expect((await bob.fetch(`/api/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(await (await bob.fetch('/api/v1/webhooks')).json()).toEqual({ webhooks: [] });
    // Alice's own resend sends it again, with the same id.
    const resent = await alice.fetch(`/api/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/resend`, {
      method: 'POST',
    });
    expect(resent.status).toBe(202);
    const both = await receiver.waitFor(2);
    expect(both[1].json.id).toBe(deliveryId);
    await removeWebhook(alice, webhook.id);
  });

  test('when a guest sends a file through a file request, then request.received names the request, the file and the guest; an upload of the owner does not', async ({
    app,
    alice,
  }) => {
    receiver = await startReceiver();
    const { webhook, secret } = await addWebhook(alice, receiver.url, ['request.received']);
    const created = await alice.fetch('/api/v1/requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Logs, please' }),
    });
    expect(created.status).toBe(201);
    const { request } = (await created.json()) as { request: { id: string } };
    await alice.upload('not through the request', 'mine.txt', 'text/plain');

    const form = new FormData();
    form.append('name', 'Carol <b>');
    form.append('note', 'the crash of Tuesday');
    form.append('file', new Blob(['crash log']), 'crash.log');
    const sent = await fetch(`${app.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: form,
    });
    expect(sent.status).toBe(201);
    // The guest is told what arrived, not its id: the owner's view of the request has it.
    const { files } = (await (await alice.fetch(`/api/v1/requests/${request.id}`)).json()) as {
      files: Array<{ id: string }>;
    };

    const [delivery] = await receiver.waitFor(1);
    expect(delivery.json).toEqual({
      id: delivery.headers['x-webhook-id'],
      type: 'request.received',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      data: {
        requestId: request.id,
        fileId: files[0].id,
        name: 'crash.log',
        size: 9,
        mimeType: expect.any(String),
        guestName: 'Carol <b>',
        guestNote: 'the crash of Tuesday',
        shareUrl: `${app.config.baseUrl}/f/${files[0].id}`,
      },
    });
    expect(signatureIsValid(delivery, secret)).toBe(true);
    // Only the guest's file: the owner's own upload queued nothing for this endpoint.
    const list = await (await alice.fetch(`/api/v1/webhooks/${webhook.id}/deliveries`)).json();
    expect(list.deliveries).toHaveLength(1);
    await removeWebhook(alice, webhook.id);
  });

  test('when a webhook is added with a bad URL or no events, then it is a 400 naming the field', async ({ alice }) => {
    const post = (body: unknown) =>
      alice.fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ftp = await post({ url: 'ftp://example.com/', events: ['file.uploaded'] });
    expect(ftp.status).toBe(400);
    expect(await ftp.json()).toEqual({ error: 'url must be an http(s) URL' });
    const none = await post({ url: 'https://example.com/', events: [] });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: 'events must name at least one event' });
    const unknown = await post({ url: 'https://example.com/', events: ['file.renamed'] });
    expect(unknown.status).toBe(400);
  });
});
