// Webhooks go to public addresses only (ADR 0050): refused when added, and again when sent.
import { startApp } from '../helpers/app';
import { describe, expect, registeredUser, test } from '../helpers/fixtures';
import { runNode, USERS_JS } from '../helpers/process';
import { pinnedLookup, RefusedAddressError } from '../../server/webhooks/address-guard';
import { startReceiver } from './receiver';

type Caller = { fetch: (path: string, init?: RequestInit) => Promise<Response> };

const addWebhook = (user: Caller, url: string, events = ['file.uploaded']) =>
  user.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });

describe('the address guard of webhooks', () => {
  test.for([
    ['http://127.0.0.1:9/hook', '127.0.0.1'],
    ['http://localhost/hook', 'localhost resolves to'],
    ['http://10.1.2.3/', '10.1.2.3'],
    ['http://172.16.0.1/', '172.16.0.1'],
    ['http://192.168.1.10/', '192.168.1.10'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://100.64.0.1/', '100.64.0.1'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://[::1]/', '::1'],
    ['http://[::]/', '::'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe'],
    ['http://[fd00::1]/', 'fd00::1'],
    ['http://[fe80::1]/', 'fe80::1'],
  ])(
    'when a webhook to %s is added without WEBHOOK_ALLOW_PRIVATE, then it is a 400 naming the address',
    async ([url, named], { alice }) => {
      const res = await addWebhook(alice, url);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: string };
      expect(error).toContain(named);
      expect(error).toContain('webhooks go to public addresses only');
      expect(await (await alice.fetch('/api/v1/webhooks')).json()).toEqual({ webhooks: [] });
    },
  );

  test('when a name resolves to a loopback address at the time of sending, then the connection is refused before it is made', async () => {
    const outcome = await new Promise<unknown>((resolve) => pinnedLookup('localhost', {}, (error) => resolve(error)));
    expect(outcome).toBeInstanceOf(RefusedAddressError);
  });

  test('when an endpoint added with WEBHOOK_ALLOW_PRIVATE=on is sent to after a restart without it, then nothing reaches it and the delivery says why', async ({
    app,
  }) => {
    const receiver = await startReceiver();
    const open = await startApp({ ...app.env, DATA_DIR: app.dataDir, WEBHOOK_ALLOW_PRIVATE: 'on' });
    let dave: Awaited<ReturnType<typeof registeredUser>>;
    let webhookId: string;
    try {
      dave = await registeredUser(open, 'dave');
      const res = await addWebhook(dave, receiver.url);
      expect(res.status).toBe(201);
      webhookId = ((await res.json()) as { webhook: { id: string } }).webhook.id;
    } finally {
      await open.close();
    }
    // The fixture's app runs on the same data, without WEBHOOK_ALLOW_PRIVATE.
    const cookie = await app.login('dave');
    const asDave = (path: string, init: RequestInit = {}) =>
      fetch(`${app.url}${path}`, { ...init, headers: { ...(init.headers ?? {}), cookie } });
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    expect((await asDave('/api/v1/files', { method: 'POST', body: form })).status).toBe(201);
    await expect
      .poll(async () => (await (await asDave(`/api/v1/webhooks/${webhookId}/deliveries`)).json()).deliveries[0], {
        timeout: 10_000,
      })
      .toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: null,
        lastError: expect.stringContaining('127.0.0.1'),
      });
    expect(receiver.received).toEqual([]);
    await receiver.close();
  });

  test('when a user with webhooks is deleted with the users CLI, then their endpoints and deliveries go with them', async ({
    app,
  }) => {
    const open = await startApp({ ...app.env, DATA_DIR: app.dataDir, WEBHOOK_ALLOW_PRIVATE: 'on' });
    try {
      const erin = await registeredUser(open, 'erin');
      const added = await addWebhook(erin, 'http://127.0.0.1:9/hook', ['file.uploaded', 'file.deleted']);
      expect(added.status).toBe(201);
      const { webhook } = (await added.json()) as { webhook: { id: string } };
      await erin.upload('bye', 'bye.txt', 'text/plain');
      const count = async () => {
        const [row] = await open.rows(
          'select (select count(*) from webhook_endpoints where id = ?) as endpoints, ' +
            '(select count(*) from webhook_deliveries where endpoint_id = ?) as deliveries',
          [webhook.id, webhook.id],
        );
        return { endpoints: Number(row.endpoints), deliveries: Number(row.deliveries) };
      };
      expect(await count()).toEqual({ endpoints: 1, deliveries: 1 });
      const deleted = await runNode(USERS_JS, ['delete', 'erin', '--yes'], { env: open.env });
      expect(deleted.code).toBe(0);
      // Her files went with her, and told nobody: the endpoint is gone too.
      expect(await count()).toEqual({ endpoints: 0, deliveries: 0 });
    } finally {
      await open.close();
    }
  });
});
