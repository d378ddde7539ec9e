// The Webhooks section of the settings page, without JavaScript: a webhook added with a form
// shows its secret once; its deliveries are listed with their status and sent again with a
// button; a private address is refused with a message; removing it empties the list.
import type { TestApp } from '../helpers/app';
import { describe, expect, test as base } from '../helpers/fixtures';
import { alertsOf, getPage, visibleText } from '../helpers/pages-fixtures';
import { signatureIsValid, startReceiver } from './receiver';

const test = base.override('appEnv', { WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_RETRY_BASE_MS: '50' });

/** Posts a settings form, as a browser without JavaScript does (a field may repeat). */
function postSettings(app: TestApp, cookie: string, fields: Array<[string, string]>) {
  return fetch(`${app.url}/settings`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('the webhooks section of the settings page', () => {
  test('when a webhook is added with the form, then its secret is shown once, it signs the deliveries the page then lists, and one is sent again with a button', async ({
    app,
    alice,
  }) => {
    const receiver = await startReceiver();
    try {
      const added = await postSettings(app, alice.cookie, [
        ['intent', 'add-webhook'],
        ['url', receiver.url],
        ['events', 'file.uploaded'],
        ['events', 'file.deleted'],
      ]);
      expect(added.status).toBe(201);
      const html = await added.text();
      const secret = /value="(whsec_[A-Za-z0-9_-]{43})"/.exec(html)?.[1];
      expect(secret).toBeDefined();
      expect(visibleText(html)).toContain('Copy its signing secret now: it is not shown again.');

      await alice.upload('from the page', 'page.txt', 'text/plain');
      const [delivery] = await receiver.waitFor(1);
      expect(signatureIsValid(delivery, secret as string)).toBe(true);

      await expect
        .poll(async () => visibleText(await (await getPage(app, '/settings', alice.cookie)).text()))
        .toContain('Delivered');
      const later = await (await getPage(app, '/settings', alice.cookie)).text();
      expect(later).not.toContain(secret);
      expect(visibleText(later)).toContain(receiver.url);
      expect(visibleText(later)).toContain('file.uploaded, file.deleted');
      expect(visibleText(later)).toContain('HTTP 200');

      const webhookId = /data-webhook-id="([^"]+)"/.exec(later)?.[1] as string;
      const resent = await postSettings(app, alice.cookie, [
        ['intent', 'resend-webhook-delivery'],
        ['id', webhookId],
        ['deliveryId', delivery.json.id],
      ]);
      expect(resent.status).toBe(200);
      expect(visibleText(await resent.text())).toContain('The delivery is sent again in a moment, with the same id.');
      const both = await receiver.waitFor(2);
      expect(both[1].json.id).toBe(delivery.json.id);

      const removed = await postSettings(app, alice.cookie, [
        ['intent', 'delete-webhook'],
        ['id', webhookId],
      ]);
      expect(removed.status).toBe(200);
      expect(visibleText(await removed.text())).toContain('No webhooks yet.');
    } finally {
      await receiver.close();
    }
  }, 60_000);

  test('when a user reads the webhooks section, then it says there what a delivery carries, how to check its signature and how it is retried, without sending them elsewhere', async ({
    app,
    alice,
  }) => {
    const html = await (await getPage(app, '/settings', alice.cookie)).text();
    const section = /<section[^>]*aria-labelledby="webhooks-heading"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    const text = visibleText(section);
    expect(text).not.toContain('README');
    // The body, the signature and its check, the retries, in short.
    for (const words of [
      '"type": "file.uploaded"',
      '"shareUrl"',
      'X-Signature: t=<unix seconds>,v1=<hex>',
      'HMAC-SHA256 of <t>.<body>',
      "under the webhook's signing secret",
      'compare the two in constant time',
      'Answer with a 2xx within 10 seconds',
      'for a day',
      'X-Webhook-Id',
    ])
      expect(text).toContain(words);
    // Long, so folded: it works without JavaScript.
    expect(section).toMatch(/<details[^>]*>\s*<summary>What your server receives, and how to check it<\/summary>/);
  });

  test("when the form names no event, or another user's webhook is removed, then the page says why and changes nothing", async ({
    app,
    alice,
    bob,
  }) => {
    const none = await postSettings(app, bob.cookie, [
      ['intent', 'add-webhook'],
      ['url', 'https://example.com/hook'],
    ]);
    expect(none.status).toBe(400);
    const html = await none.text();
    expect(alertsOf(html).join(' ')).toContain('events');
    // The URL typed comes back in the form.
    expect(html).toContain('value="https://example.com/hook"');
    const receiver = await startReceiver();
    try {
      const res = await alice.fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['file.uploaded'] }),
      });
      const { webhook } = (await res.json()) as { webhook: { id: string } };
      const stranger = await postSettings(app, bob.cookie, [
        ['intent', 'delete-webhook'],
        ['id', webhook.id],
      ]);
      expect(stranger.status).toBe(404);
      expect(alertsOf(await stranger.text()).join(' ')).toContain('Webhook not found');
      expect((await (await alice.fetch('/api/v1/webhooks')).json()).webhooks).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
