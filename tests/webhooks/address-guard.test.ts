// Webhooks go to public addresses only (ADR 0050): refused when added, and again when sent.
import { startApp } from '../helpers/app';
import { describe, expect, registeredUser, test } from '../helpers/fixtures';
import { runNode, USERS_JS } from '../helpers/process';
import http from 'node:http';
import { guardConnectedAddress, pinnedLookup, RefusedAddressError } from '../../server/webhooks/address-guard';
import { alertsOf } from '../helpers/pages-fixtures';
import { startReceiver } from './receiver';

type Caller = { fetch: (path: string, init?: RequestInit) => Promise<Response> };

const addWebhook = (user: Caller, url: string, events = ['file.uploaded']) =>
  user.fetch('/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });

/** The one answer to any endpoint that is not public: it never says what a name resolves to. */
const NOT_PUBLIC = 'url must be a public address, or a name that resolves to public addresses only';

describe('the address guard of webhooks', () => {
  test.for([
    'http://127.0.0.1:9/hook',
    'http://localhost/hook',
    'http://no-such-host.invalid/hook',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.10/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://198.18.0.1/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd00::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
    // IPv6 forms that carry an IPv4 address, judged by it:
    'http://[::ffff:127.0.0.1]/', // IPv4-mapped
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::127.0.0.1]/', // IPv4-compatible
    'http://[::ffff:0:7f00:1]/', // translated (RFC 6145)
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data', // NAT64 of 169.254.169.254 (RFC 6052)
    'http://[64:ff9b:1::a9fe:a9fe]/', // local-use NAT64 (RFC 8215), IPv4 in the last 32 bits
    'http://[64:ff9b:1:7f00:0:100:808:808]/', // the same prefix as a /48: 127.0.0.1 in bits 48-87
    'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', // Teredo, client 127.0.0.1 (XOR ffffffff)
    'http://[2001:0:a00:1::f7f7:f7f7]/', // Teredo, server 10.0.0.1, client 8.8.8.8
  ])(
    'when a webhook to %s is added without WEBHOOK_ALLOW_PRIVATE, then it is a 400 with the one message, which names no address',
    async (url, { alice }) => {
      const res = await addWebhook(alice, url);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: NOT_PUBLIC });
      expect(await (await alice.fetch('/api/v1/webhooks')).json()).toEqual({ webhooks: [] });
    },
  );

  test('when a webhook to a public address is added, then it is kept, IPv6 forms of a public IPv4 address too', async ({
    alice,
  }) => {
    // Nothing is sent to them: no event happens while they exist.
    const urls = [
      'http://1.1.1.1/hook',
      'https://[2606:4700:4700::1111]/hook',
      'http://[64:ff9b::808:808]/hook',
      'http://[2002:808:808::1]/hook',
      'http://[::ffff:8.8.4.4]/hook',
    ];
    for (const url of urls) {
      const res = await addWebhook(alice, url);
      expect(res.status, url).toBe(201);
      const { webhook } = (await res.json()) as { webhook: { id: string } };
      expect((await alice.fetch(`/api/v1/webhooks/${webhook.id}`, { method: 'DELETE' })).status).toBe(200);
    }
  });

  test('when the settings form adds a webhook to a name of the local network or to a name that does not resolve, then the page gives both the one message', async ({
    app,
    alice,
  }) => {
    const alerts: string[] = [];
    for (const url of ['http://localhost/hook', 'http://no-such-host.invalid/hook']) {
      const res = await fetch(`${app.url}/settings`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: alice.cookie },
        body: new URLSearchParams([
          ['intent', 'add-webhook'],
          ['url', url],
          ['events', 'file.uploaded'],
        ]).toString(),
      });
      expect(res.status).toBe(400);
      alerts.push(alertsOf(await res.text()).join(' '));
    }
    expect(alerts[0]).toContain(NOT_PUBLIC);
    expect(alerts[0]).not.toContain('127.0.0.1');
    expect(alerts[1]).toBe(alerts[0]);
  });

  test('when a name resolves to a loopback address at the time of sending, then the connection is refused before it is made', async () => {
    const outcome = await new Promise<unknown>((resolve) => pinnedLookup('localhost', {}, (error) => resolve(error)));
    expect(outcome).toBeInstanceOf(RefusedAddressError);
  });

  test('when a socket of a delivery reaches a loopback address, then it is ended before a byte is written', async () => {
    const receiver = await startReceiver();
    try {
      const outcome = await new Promise<unknown>((resolve) => {
        const request = http.request(receiver.url, { method: 'POST', agent: false });
        request.on('socket', guardConnectedAddress);
        request.on('error', resolve);
        request.on('response', () => resolve('answered'));
        request.end('{}');
      });
      expect(outcome).toBeInstanceOf(RefusedAddressError);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  test('when endpoints added with WEBHOOK_ALLOW_PRIVATE=on are sent to after a restart without it, then nothing reaches them and each delivery log gives the one message', async ({
    app,
  }) => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    // An address, a name of the local network and a name that does not resolve: the log tells none apart.
    const urls = [receiver.url, `http://localhost:${port}/hook`, 'http://no-such-host.invalid/hook'];
    const open = await startApp({ ...app.env, DATA_DIR: app.dataDir, WEBHOOK_ALLOW_PRIVATE: 'on' });
    const webhookIds: string[] = [];
    try {
      const dave = await registeredUser(open, 'dave');
      for (const url of urls) {
        const res = await addWebhook(dave, url);
        expect(res.status).toBe(201);
        webhookIds.push(((await res.json()) as { webhook: { id: string } }).webhook.id);
      }
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
    for (const webhookId of webhookIds)
      await expect
        .poll(async () => (await (await asDave(`/api/v1/webhooks/${webhookId}/deliveries`)).json()).deliveries[0], {
          timeout: 10_000,
        })
        .toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null, lastError: NOT_PUBLIC });
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
