// What the upload page's and a file request's drop zones promise, in Chromium with JavaScript
// on and off: dropping and pasting are the page's script, so without it the page offers only
// to choose files; once it runs, it says files may be dropped or pasted, and a pasted file
// joins the list.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let cookie: string;
let requestId: string;

setUpBrowserSuite({ users: ['pia'], timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
  const res = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Screenshots, please' }),
  });
  requestId = ((await res.json()) as { request: { id: string } }).request.id;
});

/** `path` in a browser with JavaScript on or off (hydrated when on); `body` runs with the page. */
async function open(path: string, js: boolean, body: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  try {
    const page = await context.newPage();
    await page.goto(`${app.url}${path}`);
    if (js) await waitForHydration(page, 'main form');
    await body(page);
  } finally {
    await context.close();
  }
}

/** Pastes a file on the page, as a screenshot copied a moment ago is pasted. */
async function pasteFile(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(
    ([fileName, content]) => {
      const data = new DataTransfer();
      data.items.add(new File([content], fileName, { type: 'text/plain' }));
      document.body.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
      );
    },
    [name, text],
  );
}

describe.skipIf(!hasChromium)('what the drop zones promise, in Chromium', () => {
  for (const js of [false, true]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it(`when the upload page is opened ${mode}, then its drop zone ${js ? 'says files may be dropped or pasted' : 'offers only to choose files'}`, {
      timeout: STEP_TIMEOUT,
    }, async () => {
      await open('/upload', js, async (page) => {
        const zone = ((await page.locator('.dropzone-title').textContent()) ?? '').toLowerCase();
        if (js) expect(zone).toContain('drop or paste');
        else expect(zone).not.toMatch(/drop|paste/);
        await snap(page, `upload-dropzone-${js ? 'js' : 'no-js'}`);
      });
    });

    it(`when a file request's page is opened ${mode}, then its form ${js ? 'says files may be dropped or pasted, and a pasted file joins the list' : 'offers only to choose files'}`, {
      timeout: STEP_TIMEOUT,
    }, async () => {
      await open(`/r/${requestId}`, js, async (page) => {
        const form = ((await page.locator('main form').textContent()) ?? '').toLowerCase();
        if (!js) {
          expect(form).not.toMatch(/drop|paste/);
          return;
        }
        expect(form).toContain('drop or paste files here');
        await pasteFile(page, 'pasted-note.txt', 'from the clipboard\n');
        await expect.poll(() => page.locator('.request-file-name').allTextContents()).toEqual(['pasted-note.txt']);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await page.getByRole('status').waitFor({ timeout: 30_000 });
        expect(await page.getByRole('status').textContent()).toBe('Thank you: 1 file sent.');
      });
    });
  }
});
