// Whether the pages fit the window in Chromium: on a desktop every column of the files list
// (Delete included) is in view without scrolling the table sideways; on a 375 px phone no
// part of /files or /settings is cut off at the right edge. With JavaScript on and off (the
// copy buttons appear only with it, and take room).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, type TestApp } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { apiUpload, postForm } from '../helpers/pages-fixtures';

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let cookie: string;
/** A second user, whose files have download counts of every kind (the plural forms). */
let countsCookie: string;

setUpBrowserSuite({ users: ['layla'], timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
  await apiUpload(app, cookie, { filename: 'a.txt', type: 'text/plain', content: 'x' });
  await apiUpload(app, cookie, { filename: 'photo.png', type: 'image/png', content: sampleOf('image/png', 64) });
  // The widest facts a row can have: a long type (a Word document, whose bytes are a ZIP's), an
  // expiry and a download limit.
  const form = fileForm(
    sampleOf('application/zip', 5000),
    'notes.docx',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'file',
    {
      expiresIn: '86400',
      maxDownloads: '100',
    },
  );
  const uploaded = await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
  expect(uploaded.status).toBe(201);
  await app.createUser('pablo');
  countsCookie = await app.login('pablo');
  const counted = async (filename: string, fields: Record<string, string>, downloads: number, views = 0) => {
    const res = await fetch(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: countsCookie },
      body: fileForm('x', filename, 'text/plain', 'file', fields),
    });
    const { file } = (await res.json()) as { file: { id: string } };
    for (let i = 0; i < downloads; i++) await (await fetch(`${app.url}/f/${file.id}/raw`)).arrayBuffer();
    for (let i = 0; i < views; i++) await (await fetch(`${app.url}/f/${file.id}`)).arrayBuffer();
  };
  await counted('none.txt', {}, 0);
  await counted('once.txt', {}, 1, 1);
  await counted('twice.txt', {}, 2, 2);
  await counted('limit-one.txt', { maxDownloads: '1' }, 0);
  await counted('limit-five.txt', { maxDownloads: '5' }, 1);
  // A token, so that /settings shows its tokens table too.
  const token = await postForm(
    app,
    '/settings',
    { intent: 'create-token', name: 'backup script', expiresInDays: '' },
    { cookie },
  );
  expect(token.status).toBe(201);
  // A second session, so the sessions table on /settings has a row with a real browser name.
  await fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
    body: JSON.stringify({ username: 'layla', password: DEFAULT_PASSWORD }),
  });
});

async function loggedIn(js: boolean, width: number, as = cookie): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width, height: 800 } });
  await context.addCookies([{ name: 'token', value: as.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' }]);
  return context;
}

async function open(page: Page, path: string, js: boolean) {
  await page.goto(`${app.url}${path}`);
  if (js) await waitForHydration(page);
}

/**
 * The elements of `selector` that are not wholly visible on screen: outside the window, or cut
 * by a box that clips them (an `overflow` other than visible) — each with where it is.
 */
async function cutOff(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      const box = el.getBoundingClientRect();
      const name = `${sel} "${(el.textContent || (el as HTMLInputElement).value || '').trim().slice(0, 40)}"`;
      if (box.width === 0) {
        out.push(`${name}: not rendered`);
        continue;
      }
      if (box.left < 0 || box.right > width + 0.5)
        out.push(`${name}: ${box.left.toFixed(0)}–${box.right.toFixed(0)} in a ${width} px window`);
      for (let parent = el.parentElement; parent; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX === 'visible') continue;
        const clip = parent.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) {
          out.push(
            `${name}: ${box.left.toFixed(0)}–${box.right.toFixed(0)} cut by <${parent.tagName.toLowerCase()} class="${parent.className}"> ${clip.left.toFixed(0)}–${clip.right.toFixed(0)}`,
          );
        }
      }
    }
    return out;
  }, selector);
}

/** How far the page scrolls sideways: 0 when everything fits the window. */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!hasChromium)(`the pages' layout in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    for (const width of [1280, 1024]) {
      it(
        `when /files is opened ${mode} in a ${width} px window, then every column, the Delete buttons included, is in view without scrolling the table`,
        async () => {
          const context = await loggedIn(js, width);
          try {
            const page = await context.newPage();
            await open(page, '/files', js);
            expect(await page.locator('tbody tr').count()).toBe(3);
            const wrap = await page
              .locator('.table-wrap')
              .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
            expect(wrap.scroll, `table ${wrap.scroll} px in a ${wrap.client} px box`).toBeLessThanOrEqual(wrap.client);
            expect(await cutOff(page, 'table.files th')).toEqual([]);
            expect(await cutOff(page, 'table.files td')).toEqual([]);
            expect(await cutOff(page, 'table.files button')).toEqual([]);
            expect(await cutOff(page, 'table.files .share-link input')).toEqual([]);
            for (const name of ['a.txt', 'notes.docx', 'photo.png']) {
              expect(await page.getByRole('button', { name: `Delete ${name}` }).isVisible()).toBe(true);
            }
            // Fitting is not bought by squeezing the share link to nothing: its address stays readable.
            const linkWidths = await page
              .locator('table.files .share-link input')
              .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().width));
            expect(Math.min(...linkWidths)).toBeGreaterThanOrEqual(120);
            expect(await sidewaysOverflow(page)).toBe(0);
            await snap(page, `files-${width}-${js ? 'js' : 'nojs'}`);
          } finally {
            await context.close();
          }
        },
        STEP_TIMEOUT,
      );
    }

    it(
      `when /files and /settings are opened ${mode} on a 375 px phone, then nothing is cut off at the right edge and the page does not scroll sideways`,
      async () => {
        const context = await loggedIn(js, 375);
        try {
          const page = await context.newPage();
          await open(page, '/files', js);
          expect(await sidewaysOverflow(page)).toBe(0);
          expect(await cutOff(page, 'table.files td')).toEqual([]);
          expect(await cutOff(page, 'table.files .share-link input')).toEqual([]);
          expect(await cutOff(page, 'table.files button')).toEqual([]);
          await snap(page, `files-375-${js ? 'js' : 'nojs'}`);

          await open(page, '/settings', js);
          expect(await sidewaysOverflow(page)).toBe(0);
          expect(await cutOff(page, 'table.sessions td')).toEqual([]);
          expect(await cutOff(page, 'table.sessions button')).toEqual([]);
          expect(await cutOff(page, 'table.tokens td')).toEqual([]);
          expect(await cutOff(page, 'main button')).toEqual([]);
          await snap(page, `settings-375-${js ? 'js' : 'nojs'}`);
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      `when /files is opened ${mode} on a 375 px phone, then each views and downloads count reads with its noun in the right number ("1 view · 1 download", "0 views · 0 downloads"), and at desktop widths the numbers stand alone under their header`,
      async () => {
        const countsOf = async (page: Page) =>
          Object.fromEntries(
            await page.locator('table.files tbody tr').evaluateAll((rows) =>
              rows.map((row) => {
                // What a reader sees: the cell's rendered text and any text the stylesheet adds after it.
                const cell = row.querySelector('td.downloads') as HTMLElement;
                const after = getComputedStyle(cell, '::after').content;
                const added = after && after !== 'none' && after !== 'normal' ? JSON.parse(after) : '';
                return [row.querySelector('td.name a')!.textContent, `${cell.innerText}${added}`.trim()];
              }),
            ),
          );
        // Views and the downloads of links without a limit are written within a second (ADR 0020, 0066).
        await expect
          .poll(async () => {
            const list = await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie: countsCookie } })).json();
            return list.files.map((file: { views: number; downloads: number }) => file.views + file.downloads);
          })
          .toEqual([1, 0, 4, 2, 0]);
        const phone = await loggedIn(js, 375, countsCookie);
        try {
          const page = await phone.newPage();
          await open(page, '/files', js);
          expect(await countsOf(page)).toEqual({
            'none.txt': '0 views · 0 downloads',
            'once.txt': '1 view · 1 download',
            'twice.txt': '2 views · 2 downloads',
            'limit-one.txt': '0 views · 0 / 1 download',
            'limit-five.txt': '0 views · 1 / 5 downloads',
          });
        } finally {
          await phone.close();
        }
        const desktop = await loggedIn(js, 1280, countsCookie);
        try {
          const page = await desktop.newPage();
          await open(page, '/files', js);
          expect(await countsOf(page)).toMatchObject({ 'once.txt': '1 · 1', 'limit-five.txt': '0 · 1 / 5' });
        } finally {
          await desktop.close();
        }
      },
      STEP_TIMEOUT,
    );
  }
});
