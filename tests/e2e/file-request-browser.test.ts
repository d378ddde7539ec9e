// A file request's guest page (ADR 0048) in Chromium, with and without JavaScript: a guest who
// has no account names themselves, picks two files and sends them; the answer lists what they
// sent, and the owner's request holds the files, the name and the note.
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let cookie: string;

setUpBrowserSuite({ users: ['hana'], timeout: STEP_TIMEOUT }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

async function newRequest(title: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ title, message: 'The invoices of March, please.', maxFiles: 5, requireName: true }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { request: { id: string } }).request.id;
}

describe.skipIf(!hasChromium)('the guest page of a file request in Chromium', () => {
  for (const js of [false, true]) {
    it(`when a guest ${js ? 'with' : 'without'} JavaScript sends two files with a name and a note, then the page lists them and the owner's request holds them with the name and note`, {
      timeout: STEP_TIMEOUT,
    }, async () => {
      const id = await newRequest(`Invoices ${js ? 'A' : 'B'}`);
      const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width: 390, height: 800 } });
      context.setDefaultTimeout(15_000);
      try {
        const page = await context.newPage();
        const opened = await page.goto(`${app.url}/r/${id}`);
        expect(opened?.status()).toBe(200);
        await expect.poll(() => page.locator('h1').textContent()).toBe(`Invoices ${js ? 'A' : 'B'}`);
        expect(await page.textContent('main')).toContain('The invoices of March, please.');
        expect(await page.textContent('main')).toContain('Up to 5 more files');
        // Nothing says whose space the files go to.
        expect(await page.textContent('body')).not.toContain('hana');

        await page.fill('input[name="name"]', 'Ines <i>');
        await page.fill('textarea[name="note"]', 'Both invoices of March');
        await page.setInputFiles('input[name="file"]', [
          { name: 'invoice-1.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 one\n%%EOF\n') },
          { name: 'invoice-2.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 two\n%%EOF\n') },
        ]);
        await page.click('button[type="submit"]');
        await page.waitForSelector('[role="status"]');
        expect(await page.textContent('[role="status"]')).toContain('2 files sent');
        const sent = await page.locator('.file-request-sent li').allTextContents();
        expect(sent.map((line) => line.split(' (')[0])).toEqual(['invoice-1.pdf', 'invoice-2.pdf']);
        // No sideways scroll on a phone.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

        const owner = await fetch(`${app.url}/api/v1/requests/${id}`, { headers: { cookie } });
        const { files } = (await owner.json()) as {
          files: Array<{ originalName: string; guestName: string; guestNote: string; size: number }>;
        };
        expect(files.map((file) => [file.originalName, file.guestName, file.guestNote]).sort()).toEqual([
          ['invoice-1.pdf', 'Ines <i>', 'Both invoices of March'],
          ['invoice-2.pdf', 'Ines <i>', 'Both invoices of March'],
        ]);
      } finally {
        await context.close();
      }
    });
  }
});
