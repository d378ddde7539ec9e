// Deleting from the pages in Chromium with JavaScript on: before a file, a collection, a token,
// a webhook or a file request goes, the page asks in a dialog of its own (a modal <dialog>,
// never the browser's bare confirm box) that names what goes as text, starts on Cancel, and
// is cancelled by Escape. Without JavaScript the confirmation pages are unchanged
// (tests/pages/file-pages.test.ts, collection-delete-page.test.ts).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fileForm, type TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let cookie: string;

// A webhook to a local address is refused unless allowed.
setUpBrowserSuite({ env: { WEBHOOK_ALLOW_PRIVATE: 'on' }, users: ['dora'], timeout: STEP_TIMEOUT }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${app.url}${path}`, { ...init, headers: { cookie, ...init.headers } });
  expect(res.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

const postJson = (path: string, body: unknown) =>
  api<Record<string, { id: string }>>(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function upload(name: string): Promise<string> {
  const { file } = await api<{ file: { id: string } }>('/api/v1/files', {
    method: 'POST',
    body: fileForm(`content of ${name}\n`, name, 'text/plain'),
  });
  return file.id;
}

interface Visit {
  page: Page;
  /** The browser's own dialogs (alert, confirm) that opened: there should be none. */
  nativeDialogs: string[];
}

/** Dora's browser on `path` with JavaScript, hydrated; `body` runs with it. */
async function visit(path: string, body: (visit: Visit) => Promise<void>): Promise<void> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  const page = await context.newPage();
  const nativeDialogs: string[] = [];
  page.on('dialog', (dialog) => {
    nativeDialogs.push(dialog.message());
    void dialog.dismiss();
  });
  try {
    await page.goto(`${app.url}${path}`);
    await waitForHydration(page, 'main form');
    await body({ page, nativeDialogs });
  } finally {
    await context.close();
  }
  expect(nativeDialogs).toEqual([]);
}

/** The open dialog as a person meets it: its question, whether it is modal, and what has the focus. */
async function dialogShown(page: Page) {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  return {
    question: (await dialog.locator('.confirm-question').textContent()) ?? '',
    modal: await dialog.evaluate((element) => element.matches(':modal')),
    focused: await page.evaluate(() => document.activeElement?.textContent ?? ''),
  };
}

describe.skipIf(!hasChromium)('the page’s own question before a delete, in Chromium with JavaScript', () => {
  it('when a file is deleted from My files, then a modal dialog names it as text, starts on Cancel, Escape keeps the file, and Delete deletes it', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const name = 'plan <img src=x onerror=alert(1)>.txt';
    const id = await upload(name);
    await visit('/files', async ({ page }) => {
      const button = page.getByRole('button', { name: `Delete ${name}` });
      await button.click();
      expect(await dialogShown(page)).toEqual({
        question: `Delete “${name}”? Its share link will stop working.`,
        modal: true,
        focused: 'Cancel',
      });
      expect(await page.locator('dialog img').count()).toBe(0);
      await snap(page, 'delete-dialog-file');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      // Focus is back where it was; nothing went.
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Delete ${name}`);
      expect((await api<{ files: Array<{ id: string }> }>('/api/v1/files')).files.map((file) => file.id)).toContain(id);

      await button.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `“${name}” was deleted.` })
        .waitFor();
      expect((await api<{ files: Array<{ id: string }> }>('/api/v1/files')).files.map((file) => file.id)).not.toContain(
        id,
      );
    });
  });

  it('when a collection is deleted from My files, then the dialog names it and asks whether its files go too, and they do when asked', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const files = [await upload('beach.txt'), await upload('dunes.txt')];
    const { collection } = await postJson('/api/v1/collections', {
      title: 'Summer <b>2026</b>',
      files: files.map((id) => ({ id })),
    });
    await visit('/files', async ({ page }) => {
      await page.getByRole('link', { name: 'Delete “Summer <b>2026</b>”' }).click();
      expect(await dialogShown(page)).toMatchObject({
        question: 'Delete the collection “Summer <b>2026</b>”? Its link will stop working.',
        focused: 'Cancel',
      });
      // Still this page: the question is asked here, not on the confirmation page.
      expect(new URL(page.url()).pathname).toBe('/files');
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/Also delete its 2 files/).check();
      await snap(page, 'delete-dialog-collection');
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('status').filter({ hasText: '“Summer <b>2026</b>” was deleted.' }).waitFor();
    });
    const left = await api<{ collections: Array<{ id: string }> }>('/api/v1/collections');
    expect(left.collections.map((one) => one.id)).not.toContain(collection.id);
    const stillThere = (await api<{ files: Array<{ id: string }> }>('/api/v1/files')).files.map((file) => file.id);
    expect(stillThere.filter((id) => files.includes(id))).toEqual([]);
  });

  it('when a token is revoked, then the dialog names it; Cancel keeps it working, Revoke stops it', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const created = await api<{ token: string }>('/api/v1/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'backup <script>' }),
    });
    const works = async () =>
      (await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${created.token}` } })).status;
    await visit('/settings', async ({ page }) => {
      const revoke = page.getByRole('button', { name: 'Revoke backup <script>' });
      await revoke.click();
      expect(await dialogShown(page)).toMatchObject({
        question: 'Revoke the token “backup <script>”? Whatever uses it stops working at once.',
        modal: true,
        focused: 'Cancel',
      });
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await works()).toBe(200);
      await revoke.click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
      await page.getByText('The token was revoked').waitFor();
    });
    expect(await works()).toBe(401);
  });

  it('when a webhook is removed, then the dialog names its address before it goes', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const url = 'http://127.0.0.1:9/hooks/files';
    await postJson('/api/v1/webhooks', { url, events: ['file.uploaded'] });
    await visit('/settings', async ({ page }) => {
      await page.getByRole('button', { name: `Remove ${url}` }).click();
      expect((await dialogShown(page)).question).toBe(
        `Remove the webhook to ${url}? Nothing more is sent to it, and its deliveries are deleted.`,
      );
      await page.getByRole('dialog').getByRole('button', { name: 'Remove', exact: true }).click();
      await page.getByText('The webhook was removed').waitFor();
    });
    expect((await api<{ webhooks: unknown[] }>('/api/v1/webhooks')).webhooks).toEqual([]);
  });

  it('when a file request is deleted, then the dialog names it and says its files stay; Escape keeps it', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const { request } = await postJson('/api/v1/requests', { title: 'Tax forms' });
    const requests = async () =>
      (await api<{ requests: Array<{ id: string }> }>('/api/v1/requests')).requests.map((one) => one.id);
    await visit('/requests', async ({ page }) => {
      const item = page.locator(`[data-request-id="${request.id}"]`);
      await item.getByRole('button', { name: 'Delete' }).click();
      expect(await dialogShown(page)).toMatchObject({
        question:
          'Delete the file request “Tax forms”? Its link stops working; the files it received stay in My files.',
        focused: 'Cancel',
      });
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await requests()).toContain(request.id);
      await item.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
      await item.waitFor({ state: 'detached' });
    });
    expect(await requests()).not.toContain(request.id);
  });
});
