// What the forms say and do after a refusal, in a real browser (Debian's Chromium through
// playwright-core): the parts of the page feedback (ADR 0008) that need a browser, mostly
// with JavaScript on. What the pages answer without it is tested in tests/pages.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';
import { apiUpload } from '../helpers/pages-fixtures';

const STEP_TIMEOUT = 60_000;

let app: TestApp;
let browser: Browser;
let cookie: string;

// 1.5 KiB: a "large" file is a few kilobytes.
setUpBrowserSuite({ env: { MAX_UPLOAD_BYTES: '1536' }, users: ['fiona'], timeout: STEP_TIMEOUT }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

/**
 * Runs `body` in a logged-in context with JavaScript on, closing it whatever happens; no page
 * of it may throw, nor log an error beyond the browser's note of an answer the test expects.
 */
async function withPage(
  body: (page: Page) => Promise<void>,
  { js = true, expectedStatuses = /status of (400|413)\b/ } = {},
): Promise<void> {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width: 1100, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  const errors: string[] = [];
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expectedStatuses.test(message.text())) errors.push(`console: ${message.text()}`);
  });
  try {
    await body(page);
  } finally {
    await context.close();
  }
  expect(errors).toEqual([]);
}

describe.skipIf(!hasChromium)(`the upload form with JavaScript${SKIP_NOTE}`, () => {
  it(
    'when a file over the limit is chosen, then the form says the limit in human units at once, and Upload sends nothing',
    async () => {
      await withPage(async (page) => {
        const requests: string[] = [];
        page.on('request', (request) => {
          if (request.method() !== 'GET') requests.push(`${request.method()} ${request.url()}`);
        });
        await page.goto(`${app.url}/upload`);
        await waitForHydration(page, 'form[action="/upload"]');
        await expect(page.locator('.upload-limit').innerText()).resolves.toBe('Up to 1.5 KiB.');
        await page
          .locator('input[type="file"]')
          .setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(5000, 7) });
        const alert = page.getByRole('alert');
        await expect(alert.innerText()).resolves.toBe(
          'This file is too large. Files on this server can be up to 1.5 KiB.',
        );
        await page.getByRole('button', { name: 'Upload' }).click();
        await expect(alert.innerText()).resolves.toBe(
          'This file is too large. Files on this server can be up to 1.5 KiB.',
        );
        expect(page.url()).toBe(`${app.url}/upload`);
        expect(requests).toEqual([]);
      });
      expect(await app.rows('select id from files')).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    'when the server refuses a link option of the upload, then the form names the field by its label, not by its internal name',
    async () => {
      await withPage(async (page) => {
        await page.goto(`${app.url}/upload`);
        await waitForHydration(page, 'form[action="/upload"]');
        // No `max` on the field: the browser lets it through, the server says no (400).
        await page.getByLabel('Maximum downloads').fill('2000000000');
        await page
          .locator('input[type="file"]')
          .setInputFiles({ name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('small') });
        const refused = page.waitForResponse(
          (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/uploads',
        );
        await page.getByRole('button', { name: 'Upload' }).click();
        expect((await refused).status()).toBe(400);
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.innerText()).toBe('Maximum downloads must be at most 1000000000');
      });
      expect(await app.rows('select id from files')).toEqual([]);
    },
    STEP_TIMEOUT,
  );
});

describe.skipIf(!hasChromium)(`the upload form without JavaScript${SKIP_NOTE}`, () => {
  it(
    'when the server refuses the form, then the page comes back with the link options as typed and an empty password field',
    async () => {
      await withPage(
        async (page) => {
          await page.goto(`${app.url}/upload`);
          await page.getByLabel('Expires').selectOption({ label: '1 hour' });
          await page.getByLabel('Maximum downloads').fill('2000000000');
          await page.getByLabel('Password', { exact: true }).fill('typed secret');
          await page
            .locator('input[type="file"]')
            .setInputFiles({ name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('small') });
          const [answer] = await Promise.all([
            page.waitForResponse((r) => r.request().method() === 'POST'),
            page.getByRole('button', { name: 'Upload' }).click(),
          ]);
          expect(answer.status()).toBe(400);
          await page.waitForLoadState();
          expect(await page.getByRole('alert').innerText()).toBe('Maximum downloads must be at most 1000000000');
          expect(await page.getByLabel('Expires').inputValue()).toBe('3600');
          expect(await page.getByLabel('Maximum downloads').inputValue()).toBe('2000000000');
          expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
          expect(await page.content()).not.toContain('typed secret');
        },
        { js: false },
      );
    },
    STEP_TIMEOUT,
  );
});

describe.skipIf(!hasChromium)(`deleting on /files with JavaScript${SKIP_NOTE}`, () => {
  // Focus moves once the row is gone and the list drawn again: on a loaded machine, past vitest's 1 s default.
  const FOCUS_WAIT = { timeout: 10_000 };
  /** What has keyboard focus: a button by its accessible name, the heading by its text, else the tag. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      return el.getAttribute('aria-label') ?? `${el.tagName.toLowerCase()}: ${el.textContent?.trim()}`;
    });

  /** The page's dialog, open on its Cancel button, answered with the keyboard: Tab to Delete, Enter. */
  async function confirmWithKeyboard(page: Page): Promise<void> {
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
  }

  /** Deletes with the keyboard: focus on the row's Delete button, Enter, the page's dialog confirmed. */
  async function deleteWithKeyboard(page: Page, name: string): Promise<void> {
    const button = page.getByRole('button', { name: `Delete ${name}` });
    await button.focus();
    await page.keyboard.press('Enter');
    await confirmWithKeyboard(page);
    await page
      .getByRole('status')
      .filter({ hasText: `“${name}” was deleted.` })
      .waitFor();
    await button.waitFor({ state: 'detached' });
  }

  it(
    "when a file is deleted with the keyboard, then focus moves to the next row's Delete button (the one before for the last row), and to the heading once the list is empty",
    async () => {
      // Newest first on the list: c, b, a.
      for (const name of ['a.txt', 'b.txt', 'c.txt'])
        await apiUpload(app, cookie, { filename: name, type: 'text/plain', content: name });
      await withPage(async (page) => {
        await page.goto(`${app.url}/files`);
        await waitForHydration(page);
        await deleteWithKeyboard(page, 'b.txt');
        await expect.poll(() => focused(page), FOCUS_WAIT).toBe('Delete a.txt');
        await deleteWithKeyboard(page, 'a.txt');
        await expect.poll(() => focused(page), FOCUS_WAIT).toBe('Delete c.txt');
        await deleteWithKeyboard(page, 'c.txt');
        await expect.poll(() => focused(page), FOCUS_WAIT).toBe('h1: My files');
      });
      expect(await app.rows('select id from files')).toEqual([]);
    },
    STEP_TIMEOUT,
  );

  it(
    "when the file was already deleted elsewhere, then its row goes and focus moves to the next row's Delete button too",
    async () => {
      const gone = await apiUpload(app, cookie, { filename: 'gone.txt', type: 'text/plain', content: 'x' });
      await apiUpload(app, cookie, { filename: 'newer.txt', type: 'text/plain', content: 'x' });
      await withPage(
        async (page) => {
          await page.goto(`${app.url}/files`);
          await waitForHydration(page);
          // Deleted behind the page's back (another tab, the API).
          expect(
            (await fetch(`${app.url}/api/v1/files/${gone.id}`, { method: 'DELETE', headers: { cookie } })).status,
          ).toBe(200);
          const button = page.getByRole('button', { name: 'Delete gone.txt' });
          await button.focus();
          await page.keyboard.press('Enter');
          await confirmWithKeyboard(page);
          await page.getByRole('alert').filter({ hasText: '“gone.txt” was already deleted.' }).waitFor();
          await button.waitFor({ state: 'detached' });
          await expect.poll(() => focused(page), FOCUS_WAIT).toBe('Delete newer.txt');
        },
        { expectedStatuses: /status of 404\b/ },
      );
    },
    STEP_TIMEOUT,
  );
});
