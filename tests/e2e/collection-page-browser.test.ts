// A collection's page (ADR 0038) in a real browser (Debian's Chromium through playwright-core),
// with JavaScript on and off: the tree of folders, a thumbnail that loads, a password-protected
// collection opened with its password (which opens its files too, ADR 0067), and "Download all"
// saving a ZIP. Every visitor is a fresh context with no cookies at all.
import fs from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, screenshotPath } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';
import { makePng } from '../helpers/pages-fixtures';
import { startSharingApp, type SharingApp } from '../sharing/support';

let app: SharingApp;
let browser: Browser;

setUpBrowserSuite({ start: () => startSharingApp() }, (suite) => {
  ({ app, browser } = suite);
});

/** A visitor's context: no cookies; no page of it may throw or log an error beyond an expected 401. */
async function withVisitor<T>(js: boolean, body: (context: BrowserContext) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ javaScriptEnabled: js, acceptDownloads: true });
  context.setDefaultTimeout(15_000);
  const errors: string[] = [];
  context.on('page', (page) => {
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error' || /status of 401\b/.test(message.text())) return;
      errors.push(`console: ${message.text()}`);
    });
  });
  try {
    return await body(context);
  } finally {
    await context.close();
    expect(errors).toEqual([]);
  }
}

async function makeCollection(body: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const res = await fetch(`${app.url}/api/v1/collections`, {
    method: 'POST',
    headers: { cookie: app.cookie, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`collection not made: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { collection: { id: string; url: string } }).collection;
}

describe('the collection page in a browser', () => {
  for (const js of [false, true]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it.skipIf(!hasChromium)(
      `when a visitor opens a password-protected collection and types its password (${mode}), then the tree of folders shows, a thumbnail loads, and "Download all" saves a ZIP`,
      async () => {
        const beach = await app.upload(makePng(), 'beach.png', 'image/png');
        const notes = await app.upload('remember the hats', 'notes.txt', 'text/plain');
        const collection = await makeCollection({
          title: 'Holiday <2026>',
          password: 'open sesame',
          files: [
            { id: beach.file.id, path: 'photos/2026/beach.png' },
            { id: notes.file.id, path: 'notes.txt' },
          ],
        });
        await withVisitor(js, async (context) => {
          const page = await context.newPage();
          const locked = await page.goto(collection.url);
          expect(locked?.status()).toBe(401);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Password-protected collection');
          if (js) await waitForHydration(page, 'main form');

          await page.getByLabel('Password').fill('wrong guess');
          await page.getByRole('button', { name: 'Open' }).click();
          await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong password.');

          await page.getByLabel('Password').fill('open sesame');
          await Promise.all([
            page.waitForURL(collection.url),
            page.getByRole('heading', { level: 1, name: 'Holiday <2026>' }).waitFor(),
            page.getByRole('button', { name: 'Open' }).click(),
          ]);
          expect(await page.locator('.collection-summary').textContent()).toMatch(/^2 files, /);

          // The tree: photos › 2026 › beach.png, and notes.txt beside photos.
          const photos = page.locator('details', { has: page.locator('summary', { hasText: 'photos' }) }).first();
          expect(await photos.getAttribute('open')).toBe('');
          const year = photos.locator('details', { has: page.locator('summary', { hasText: '2026' }) });
          expect(await year.getByRole('link', { name: 'beach.png' }).getAttribute('href')).toBe(`/f/${beach.file.id}`);
          expect(await page.getByRole('link', { name: 'notes.txt' }).getAttribute('href')).toBe(`/f/${notes.file.id}`);
          // The thumbnail loads (the file's own link asks nothing).
          const thumbnail = year.locator('img.thumbnail');
          await thumbnail.scrollIntoViewIfNeeded();
          await expect
            .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
            .toBe(64);
          await page.screenshot({ path: screenshotPath(`collection-page-${js ? 'js' : 'nojs'}`), fullPage: true });
          // Folders fold (a click on the summary), without any script of ours.
          await photos.locator('summary').first().click();
          expect(await photos.getAttribute('open')).toBeNull();

          const downloading = page.waitForEvent('download');
          await page.getByRole('link', { name: 'Download all' }).click();
          const download = await downloading;
          expect(download.suggestedFilename()).toBe('Holiday <2026>.zip'.replace(/[<>]/g, '_'));
          const zip = fs.readFileSync((await download.path())!);
          expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
          expect(zip.includes(Buffer.from('photos/2026/beach.png'))).toBe(true);
          expect(zip.includes(Buffer.from('remember the hats'))).toBe(true);
        });
      },
      60_000,
    );
  }

  for (const js of [false, true]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it.skipIf(!hasChromium)(
      `when a visitor unlocks a protected collection whose files have passwords of their own (${mode}), then the image's thumbnail shows, and each file's page opens with its preview without asking again`,
      async () => {
        const own = { password: 'each file its own' };
        const beach = await app.upload(makePng(120, 80), 'beach.png', 'image/png', own);
        const notes = await app.upload('remember the hats', 'notes.txt', 'text/plain', own);
        const collection = await makeCollection({
          title: 'Locked holiday',
          password: 'open sesame',
          files: [{ id: beach.file.id }, { id: notes.file.id }],
        });
        // The thumbnail is made after the upload has answered: wait for it, as the owner.
        await expect
          .poll(async () => (await fetch(`${beach.url}/thumbnail`, { headers: { cookie: app.cookie } })).status, {
            timeout: 15_000,
          })
          .toBe(200);
        await withVisitor(js, async (context) => {
          const page = await context.newPage();
          expect((await page.goto(collection.url))?.status()).toBe(401);
          if (js) await waitForHydration(page, 'main form');
          await page.getByLabel('Password').fill('open sesame');
          await Promise.all([
            page.getByRole('heading', { level: 1, name: 'Locked holiday' }).waitFor(),
            page.getByRole('button', { name: 'Open' }).click(),
          ]);

          const thumbnail = page.locator('img.thumbnail');
          expect(await thumbnail.count()).toBe(1);
          expect(await thumbnail.getAttribute('src')).toBe(`/f/${beach.file.id}/thumbnail`);
          await thumbnail.scrollIntoViewIfNeeded();
          await expect
            .poll(() => thumbnail.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)))
            .toBeGreaterThan(0);

          await Promise.all([
            page.waitForURL(`${app.url}/f/${beach.file.id}`),
            page.getByRole('link', { name: 'beach.png' }).click(),
          ]);
          expect(await page.locator('h1.file-name').textContent()).toBe('beach.png');
          expect(await page.getByLabel('Password').count()).toBe(0);
          const preview = page.locator('section.preview img');
          await expect
            .poll(() => preview.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0)))
            .toBe(120);

          await page.goBack();
          await Promise.all([
            page.waitForURL(`${app.url}/f/${notes.file.id}`),
            page.getByRole('link', { name: 'notes.txt' }).click(),
          ]);
          expect(await page.locator('h1.file-name').textContent()).toBe('notes.txt');
          expect(await page.getByLabel('Password').count()).toBe(0);
          expect(await page.locator('section.preview pre.text-preview').textContent()).toContain('remember the hats');
        });
      },
      60_000,
    );
  }

  for (const js of [false, true]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it.skipIf(!hasChromium)(
      `when the owner chooses two files on the upload page (${mode}), then they land on the page of one collection of both`,
      async () => {
        const context = await browser.newContext({ javaScriptEnabled: js });
        context.setDefaultTimeout(15_000);
        try {
          const value = app.cookie.slice(app.cookie.indexOf('=') + 1);
          await context.addCookies([{ name: 'token', value, url: app.url, httpOnly: true, sameSite: 'Lax' }]);
          const page = await context.newPage();
          await page.goto(`${app.url}/upload`);
          if (js) await waitForHydration(page, 'main form');
          await page.getByLabel('Collection title').fill('Two of them');
          await page.locator('input[type=file]').setInputFiles([
            { name: 'first.txt', mimeType: 'text/plain', buffer: Buffer.from('first') },
            { name: 'second.txt', mimeType: 'text/plain', buffer: Buffer.from('second') },
          ]);
          await Promise.all([
            page.waitForURL(/\/c\/[A-Za-z0-9_-]{22}$/),
            page.locator('main').getByRole('button', { name: 'Upload' }).click(),
          ]);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Two of them');
          expect(await page.locator('.collection-summary').textContent()).toBe('2 files, 11 bytes');
          expect(await page.getByRole('link', { name: 'first.txt' }).count()).toBe(1);
          expect(await page.getByRole('link', { name: 'second.txt' }).count()).toBe(1);
        } finally {
          await context.close();
        }
      },
      60_000,
    );
  }
});
