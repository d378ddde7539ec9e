// The site opened at another address than BASE_URL, as a person does after `PORT=3100 npm start`
// (http://127.0.0.1:3100 while the default BASE_URL says localhost), in Debian's Chromium: the
// upload page sends its file, with JavaScript (a resumable upload, whose address must stay on the
// page's own origin: the page's Content-Security-Policy allows nothing else) and without it, and
// the share link the page then shows is BASE_URL's when it is set and the visitor's address when
// it is not.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowser } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';

const SHARE_PAGE = /\/f\/([A-Za-z0-9_-]+)$/;
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let browser: Browser;
const filesDir = tempDir('fs-addresses-');

setUpBrowser((launched) => {
  browser = launched;
});

afterAll(() => {
  fs.rmSync(filesDir, { recursive: true, force: true });
});

/** The app's address with another host name for the same machine. */
function at(app: TestApp, host: '127.0.0.1' | 'localhost'): string {
  const url = new URL(app.url);
  url.hostname = host;
  return url.origin;
}

/**
 * Logs in on the page at `site`, uploads a file from the upload page, and returns the share link
 * the file's page shows, after checking the stored bytes are the chosen file's.
 */
async function uploadThroughThePage(app: TestApp, site: string, javaScript: boolean): Promise<string> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, javaScriptEnabled: javaScript });
  context.setDefaultTimeout(15_000);
  const refused: string[] = [];
  try {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await page.goto(`${site}/login?redirectTo=%2Fupload`);
    if (javaScript) await waitForHydration(page);
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${site}/upload`);
    if (javaScript) await waitForHydration(page);

    const bytes = randomBytes(300 * 1024);
    const file = path.join(filesDir, `${javaScript ? 'with' : 'without'}-script-${Date.now()}.bin`);
    fs.writeFileSync(file, bytes);
    await page.locator('input[type=file]').setInputFiles(file);
    await page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click();
    await page.waitForURL(SHARE_PAGE);
    expect(new URL(page.url()).origin).toBe(site);

    const id = SHARE_PAGE.exec(page.url())?.[1] as string;
    const raw = await fetch(`${app.url}/f/${id}/raw`);
    expect(raw.status).toBe(200);
    expect(sha256(new Uint8Array(await raw.arrayBuffer()))).toBe(sha256(bytes));
    // No request of the page went anywhere its policy refuses.
    expect(refused.filter((text) => /Content Security Policy|Refused to connect/.test(text))).toEqual([]);
    return await page.getByRole('textbox', { name: 'Share link' }).inputValue();
  } finally {
    await context.close();
  }
}

describe.skipIf(!hasChromium)('the site opened at another address than BASE_URL', () => {
  describe('when BASE_URL is not set', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp({}, { withoutBaseUrl: true });
      await app.createUser('alice');
    });
    afterAll(() => app?.close());

    for (const host of ['127.0.0.1', 'localhost'] as const) {
      for (const javaScript of [true, false]) {
        it(`when a person opens it at ${host} and uploads with JavaScript ${javaScript ? 'on' : 'off'}, then the file arrives whole and its share link names ${host}`, async () => {
          const site = at(app, host);
          const shown = await uploadThroughThePage(app, site, javaScript);
          expect(shown).toMatch(new RegExp(`^${site}/f/[A-Za-z0-9_-]+$`));
        });
      }
    }
  });

  describe('when BASE_URL names another address', () => {
    const PUBLIC = 'http://files.example.test';
    let app: TestApp;
    beforeAll(async () => {
      app = await startApp({ BASE_URL: PUBLIC });
      await app.createUser('alice');
    });
    afterAll(() => app?.close());

    for (const javaScript of [true, false]) {
      it(`when a person opens it at 127.0.0.1 and uploads with JavaScript ${javaScript ? 'on' : 'off'}, then the file arrives whole and its share link is BASE_URL's`, async () => {
        const shown = await uploadThroughThePage(app, at(app, '127.0.0.1'), javaScript);
        expect(shown).toMatch(new RegExp(`^${PUBLIC}/f/[A-Za-z0-9_-]+$`));
      });
    }
  });
});
