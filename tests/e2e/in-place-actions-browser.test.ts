// The in-place actions of the owner's pages in Chromium (ADR 0077): with JavaScript a file
// request's create, close, reopen and delete, a token's create and revoke, a webhook's add and
// remove, and a collection's delete go through /trpc and the page shows the result without
// loading a page; a removed row goes at once and comes back with the message if the server
// refuses. Without JavaScript the same forms do the same through the pages' actions.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { CHROMIUM_PATH, hasChromium, launchBrowser } from '../helpers/browser';
import { answerDialog, waitForHydration } from '../helpers/pages-browser';

const SKIP_REASON = hasChromium
  ? ''
  : ` — SKIPPED: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
if (!hasChromium) console.warn(`tests/e2e/in-place-actions-browser.test.ts${SKIP_REASON}`);

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  if (!hasChromium) return;
  // A webhook to a local address is refused unless allowed.
  [app, browser] = await Promise.all([startApp({ WEBHOOK_ALLOW_PRIVATE: 'on' }), launchBrowser()]);
  await app.createUser('ottilie');
  cookie = await app.login('ottilie');
}, STEP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${app.url}${path}`, { ...init, headers: { cookie, ...init.headers } });
  expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

/** What the browser asked the server for after the page first loaded. */
interface Traffic {
  /** The /trpc procedures called, e.g. "requests.create". */
  calls: string[];
  /** Pages loaded or forms posted as documents ("POST /requests"). */
  documents: string[];
}

/** Ottilie's browser on `path`, with or without JavaScript (hydrated when with); `body` runs with it. */
async function visit(js: boolean, path: string, body: (page: Page, traffic: Traffic) => Promise<void>) {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  try {
    const page = await context.newPage();
    await page.goto(`${app.url}${path}`);
    if (js) await waitForHydration(page, 'main form');
    const traffic: Traffic = { calls: [], documents: [] };
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/trpc/')) traffic.calls.push(...url.pathname.slice(6).split(','));
      if (request.resourceType() === 'document') traffic.documents.push(`${request.method()} ${url.pathname}`);
    });
    await body(page, traffic);
  } finally {
    await context.close();
  }
}

/** Holds every /trpc call until `release()`, to see the page before the server answers. */
async function holdCalls(page: Page): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/trpc/**', async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

describe.skipIf(!hasChromium)(`in-place actions in Chromium${SKIP_REASON}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    it(`when a file request is made, closed, reopened and deleted ${mode}, then the page shows each step ${js ? 'through /trpc without loading a page' : 'through its forms'}`, {
      timeout: STEP_TIMEOUT,
    }, async () => {
      const title = `Receipts ${mode}`;
      await visit(js, '/requests', async (page, traffic) => {
        // A refusal says what the form says either way: the service's message, the field by its label.
        await page.getByLabel('Title').fill('   ');
        await page.getByRole('button', { name: 'Make the link' }).click();
        await page.getByRole('alert').waitFor();
        expect(await page.getByRole('alert').textContent()).toBe('Title is required');

        await page.getByLabel('Title').fill(title);
        await page.getByRole('button', { name: 'Make the link' }).click();
        const card = page.locator('li[data-request-id]', { hasText: title });
        await card.waitFor();
        expect(await page.getByRole('alert').count()).toBe(0);
        // The form is empty again, for the next request.
        expect(await page.getByLabel('Title').inputValue()).toBe('');

        await card.getByRole('button', { name: 'Close' }).click();
        await expect.poll(() => card.locator('.badge').first().textContent()).toBe('Closed');
        await card.getByRole('button', { name: 'Reopen' }).click();
        await expect.poll(() => card.locator('.badge').first().textContent()).toBe('Open');

        await card.getByRole('button', { name: 'Delete' }).click();
        if (js) await answerDialog(page, 'Delete');
        await expect.poll(() => card.count()).toBe(0);

        if (js) {
          expect(new Set(traffic.calls)).toEqual(new Set(['requests.create', 'requests.setClosed', 'requests.delete']));
          expect(traffic.documents).toEqual([]);
        } else {
          expect(traffic.calls).toEqual([]);
          expect(traffic.documents.filter((one) => one === 'POST /requests')).toHaveLength(5);
        }
      });
      const { requests } = await api<{ requests: Array<{ title: string }> }>('/api/v1/requests');
      expect(requests.map((one) => one.title)).not.toContain(title);
    });

    it(`when a token is created and revoked and a webhook added and removed ${mode}, then the settings page shows each ${js ? 'through /trpc without loading a page' : 'through its forms'}`, {
      timeout: STEP_TIMEOUT,
    }, async () => {
      const name = `deploy ${mode}`;
      const hook = `http://127.0.0.1:9/hooks/${js ? 'on' : 'off'}`;
      await visit(js, '/settings', async (page, traffic) => {
        await page.getByLabel('Name').fill(name);
        await page.getByRole('button', { name: 'Create token' }).click();
        const token = await page.getByLabel('Your new API token').inputValue();
        expect(token).toMatch(/^fsk_/);
        const row = page.locator('table.tokens tr', { hasText: name });
        await row.waitFor();
        expect(await page.getByLabel('Name').inputValue()).toBe('');
        await row.getByRole('button', { name: `Revoke ${name}` }).click();
        if (js) await answerDialog(page, 'Revoke');
        await page.getByText('The token was revoked: it no longer works.').waitFor();
        await expect.poll(() => row.count()).toBe(0);

        await page.getByLabel('URL').fill(hook);
        await page.getByRole('button', { name: 'Add webhook' }).click();
        expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
        // The form is empty again, for the next webhook.
        expect(await page.getByLabel('URL').inputValue()).toBe('');
        const webhook = page.locator('.webhook', { hasText: hook });
        await webhook.waitFor();
        await webhook.getByRole('button', { name: `Remove ${hook}` }).click();
        if (js) await answerDialog(page, 'Remove');
        await page.getByText('The webhook was removed: nothing more is sent to it.').waitFor();
        await expect.poll(() => webhook.count()).toBe(0);

        if (js) {
          expect(new Set(traffic.calls)).toEqual(
            new Set(['tokens.create', 'tokens.revoke', 'webhooks.create', 'webhooks.delete']),
          );
          expect(traffic.documents).toEqual([]);
        } else {
          expect(traffic.calls).toEqual([]);
          expect(traffic.documents.filter((one) => one === 'POST /settings')).toHaveLength(4);
        }
      });
      const { tokens } = await api<{ tokens: Array<{ name: string }> }>('/api/v1/tokens');
      expect(tokens.map((one) => one.name)).not.toContain(name);
      const { webhooks } = await api<{ webhooks: Array<{ url: string }> }>('/api/v1/webhooks');
      expect(webhooks.map((one) => one.url)).not.toContain(hook);
    });
  }

  it('when a token is revoked with JavaScript, then its row goes before the server answers, and comes back with the message when the server refuses', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const { apiToken } = await api<{ apiToken: { id: string } }>('/api/v1/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop script' }),
    });
    await visit(true, '/settings', async (page) => {
      // Revoked meanwhile elsewhere: this page's revoke is refused.
      await api(`/api/v1/tokens/${apiToken.id}`, { method: 'DELETE' });
      const release = await holdCalls(page);
      const row = page.locator('tr[data-token-id]', { hasText: 'laptop script' });
      await row.getByRole('button', { name: 'Revoke laptop script' }).click();
      await answerDialog(page, 'Revoke');
      await expect.poll(() => row.count()).toBe(0);
      release();
      await page.getByRole('alert').filter({ hasText: 'Token not found' }).waitFor();
      expect(await row.count()).toBe(1);
    });
  });

  it('when a collection is deleted from My files with JavaScript, then it goes through /trpc and the page says so without loading a page', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const { file } = await api<{ file: { id: string } }>('/api/v1/files', {
      method: 'POST',
      body: fileForm('the lake\n', 'lake.txt', 'text/plain'),
    });
    const { collection } = await api<{ collection: { id: string } }>('/api/v1/collections', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Lakes', files: [{ id: file.id }] }),
    });
    await visit(true, '/files', async (page, traffic) => {
      const release = await holdCalls(page);
      await page.getByRole('link', { name: 'Delete “Lakes”' }).click();
      await answerDialog(page, 'Delete');
      await expect.poll(() => page.locator('.collection-list li', { hasText: 'Lakes' }).count()).toBe(0);
      release();
      await page.getByRole('status').filter({ hasText: '“Lakes” was deleted.' }).waitFor();
      expect(traffic.calls).toEqual(['collections.delete']);
      expect(traffic.documents).toEqual([]);
    });
    const { collections } = await api<{ collections: Array<{ id: string }> }>('/api/v1/collections');
    expect(collections.map((one) => one.id)).not.toContain(collection.id);
    // Its file stays, with its own link.
    expect((await api<{ files: Array<{ id: string }> }>('/api/v1/files')).files.map((one) => one.id)).toContain(
      file.id,
    );
  });
});
