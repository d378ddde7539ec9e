// The share controls (ADR 0014) in a real browser (Debian's Chromium through playwright-core),
// each with JavaScript on and off: link options on the upload page, a visitor unlocking a
// password-protected link, the owner's settings form on the share page, a download limit used
// up, and an expired link. The owner's browser carries the session cookie (`token`); every
// visitor is a fresh context with no cookies at all.
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';
import { makePng } from '../helpers/pages-fixtures';
import { startSharingApp, type SharingApp } from '../sharing/support';

const STEP_TIMEOUT = 30_000;
/** Far beyond the run: no sweep removes an expired or used-up file while a test looks at its 410. */
const NO_SWEEP = { expirySweepEveryMs: 3_600_000 };

let app: SharingApp;
/** A second app whose time a test moves on, for expiry. */
let clockApp: SharingApp;
const clock = new TestClock();
let browser: Browser;

setUpBrowserSuite(
  {
    start: async () => {
      [app, clockApp] = await Promise.all([startSharingApp({}, NO_SWEEP), startSharingApp({}, { clock, ...NO_SWEEP })]);
      return app;
    },
  },
  (suite) => {
    browser = suite.browser;
  },
);

afterAll(async () => {
  await clockApp?.close();
});

/** A browser context; with `owner`, logged in as the app's uploader (its `token` cookie). */
async function newContext(js: boolean, owner?: SharingApp): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled: js,
    acceptDownloads: true,
    viewport: { width: 1100, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  if (owner) {
    const value = owner.cookie.slice(owner.cookie.indexOf('=') + 1);
    await context.addCookies([{ name: 'token', value, url: owner.url, httpOnly: true, sameSite: 'Lax' }]);
  }
  return context;
}

/**
 * Runs `body` with a context, closing it whatever happens; then no page of it may have thrown
 * or logged an error (a failed hydration, say), beyond the browser's note of an expected
 * 400, 401 or 410 answer.
 */
async function withContext<T>(
  js: boolean,
  owner: SharingApp | undefined,
  body: (context: BrowserContext) => Promise<T>,
): Promise<T> {
  const context = await newContext(js, owner);
  const errors: string[] = [];
  context.on('page', (page) => {
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      // The answers these tests expect.
      if (/status of (400|401|410)\b/.test(message.text())) return;
      errors.push(`console: ${message.text()} (${message.location().url})`);
    });
  });
  let result: T;
  try {
    result = await body(context);
  } finally {
    await context.close();
  }
  expect(errors).toEqual([]);
  return result;
}

/** Marks the page's window: the mark survives only while the page is not loaded again. */
async function markWindow(page: Page): Promise<void> {
  await page.evaluate(() => ((window as unknown as { shareControlsMark?: string }).shareControlsMark = 'same page'));
}

async function windowMark(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as unknown as { shareControlsMark?: string }).shareControlsMark);
}

/** With JavaScript, waits for React to own the page's form, so a click runs its script. */
async function ready(page: Page, js: boolean, selector = 'main form'): Promise<void> {
  if (js) await waitForHydration(page, selector);
}

/** The id in a /f/<id> address. */
function fileIdFrom(url: string): string {
  const id = /\/f\/([A-Za-z0-9_-]+)$/.exec(new URL(url).pathname)?.[1];
  if (!id) throw new Error(`not a share page: ${url}`);
  return id;
}

async function fileRow(target: SharingApp, id: string) {
  const [row] = await target.rows(
    'select expires_at, max_downloads, downloads, password_hash from files where id = ?',
    [id],
  );
  return row;
}

/** A stored date column as milliseconds (SQLite gives a number, PostgreSQL a date). */
function millis(value: unknown): number {
  return value instanceof Date ? value.getTime() : Number(value) || Date.parse(String(value));
}

/** How the pages say the time left: rounded to the nearest unit, the largest one it reaches. */
function expiryText(leftMs: number): string {
  if (leftMs <= 0) return 'expired';
  const plural = (count: number, name: string) => `expires in ${count} ${name}${count === 1 ? '' : 's'}`;
  const minutes = Math.round(leftMs / 60_000);
  if (minutes < 1) return 'expires in less than a minute';
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.round(leftMs / 3600_000);
  return hours < 24 ? plural(hours, 'hour') : plural(Math.round(leftMs / 86400_000), 'day');
}

/** What a page rendered between `before` and `after` may say of a link expiring at `expiresAt`. */
function expiryTexts(expiresAt: number, before: number, after: number): string[] {
  return [...new Set([expiryText(expiresAt - before), expiryText(expiresAt - after)])];
}

/** Opens /files and returns the file's row. */
async function openFilesRow(page: Page, target: SharingApp, id: string) {
  const res = await page.goto(`${target.url}/files`);
  expect(res?.status()).toBe(200);
  const row = page.locator(`tr[data-file-id="${id}"]`);
  await row.waitFor();
  return row;
}

for (const js of [true, false]) {
  const mode = js ? 'with JavaScript' : 'without JavaScript';

  describe.skipIf(!hasChromium)(`share controls in Chromium, ${mode}${SKIP_NOTE}`, () => {
    it(
      `when the owner uploads on /upload with expiry 1 day, at most 3 downloads and a password (${mode}), then they land on the file page and /files shows the expiry, "0 / 3" and the lock`,
      async () => {
        await withContext(js, app, async (context) => {
          const page = await context.newPage();
          const posts: string[] = [];
          page.on('request', (request) => {
            if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
          });
          const res = await page.goto(`${app.url}/upload`);
          expect(res?.status()).toBe(200);
          await ready(page, js);

          const name = `options-${js ? 'js' : 'nojs'}.txt`;
          const content = Buffer.from(`uploaded with link options ${mode}\n`);
          await page.getByLabel('Expires').selectOption({ label: '1 day' });
          await page.getByLabel('Maximum downloads').fill('3');
          await page.getByLabel('Password', { exact: true }).fill('open sesame');
          await page.locator('input[type=file]').setInputFiles({ name, mimeType: 'text/plain', buffer: content });
          const before = Date.now();
          await page.locator('main').getByRole('button', { name: 'Upload' }).click();
          await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/);
          const id = fileIdFrom(page.url());
          // The page's script sent it as a resumable upload (tus); without it, the form posted itself.
          expect(posts).toEqual([js ? '/api/v1/uploads' : '/upload']);

          // The owner's own page: their file, with its settings.
          expect(await page.locator('h1.file-name').textContent()).toBe(name);
          const row = await fileRow(app, id);
          expect(row).toMatchObject({ max_downloads: 3, downloads: 0 });
          expect(String(row.password_hash)).toMatch(/^\$2/);
          const expiresAt = millis(row.expires_at);
          expect(expiresAt).toBeGreaterThanOrEqual(before + 86400_000 - 1000);
          expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86400_000 + 1000);
          expect(await page.locator('dd.downloads').textContent()).toBe('0 / 3');

          const listedFrom = Date.now();
          const listed = await openFilesRow(page, app, id);
          const listedTo = Date.now();
          expect(expiryTexts(expiresAt, listedFrom, listedTo)).toContain(
            await listed.locator('td.expires').textContent(),
          );
          // A little less than a full day is left by the time the list is shown: it reads as chosen.
          expect(await listed.locator('td.expires').textContent()).toBe('expires in 1 day');
          // Views (none: the owner's looks never count) and downloads (ADR 0066).
          expect(await listed.locator('td.downloads').innerText()).toBe('0 · 0 / 3');
          expect(await listed.locator('span[aria-label="Password-protected"]').isVisible()).toBe(true);
          expect((await app.storedFiles()).some((stored) => stored.startsWith(id))).toBe(true);
        });
      },
      STEP_TIMEOUT,
    );

    it(
      `when a visitor opens a password-protected image link (${mode}), then they see only the password form; a wrong password says so, the right one shows the image`,
      async () => {
        const png = makePng(120, 80);
        const name = `secret-${js ? 'js' : 'nojs'}-holiday.png`;
        const uploaded = await app.upload(png, name, 'image/png', { password: 'open sesame' });
        const id = uploaded.file.id;

        await withContext(js, undefined, async (context) => {
          const page = await context.newPage();
          const res = await page.goto(uploaded.url);
          expect(res?.status()).toBe(401);
          await ready(page, js);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Password-protected file');
          expect(await page.title()).toBe('Password-protected file · File sharing');
          expect(await page.evaluate(() => document.title)).toBe('Password-protected file · File sharing');
          expect(await page.content()).not.toContain(name);
          expect(await page.content()).not.toContain('secret-');
          // No picture of it (the header's logo aside).
          expect(await page.locator('main img').count()).toBe(0);
          // Its raw link gives nothing either.
          expect((await context.request.get(uploaded.rawUrl)).status()).toBe(401);
          await markWindow(page);

          // A wrong password: the form again, saying so, still naming nothing.
          await page.getByLabel('Password').fill('not the password');
          const wrongAnswer = page.waitForResponse(
            (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.replace(/\.data$/, '') === `/f/${id}`,
          );
          await page.getByRole('button', { name: 'Open' }).click();
          expect((await wrongAnswer).status()).toBe(401);
          const alert = page.getByRole('alert');
          await alert.waitFor();
          expect(await alert.textContent()).toBe('Wrong password.');
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Password-protected file');
          expect(await page.content()).not.toContain(name);
          expect((await context.cookies()).some((cookie) => cookie.name === `share_${id}`)).toBe(false);
          // With JavaScript the form was sent by script; without, the browser loaded the answer.
          expect(await windowMark(page)).toBe(js ? 'same page' : undefined);

          // The right one: the file's page, its name, and the picture loaded through its preview address.
          await ready(page, js);
          await page.getByLabel('Password').fill('open sesame');
          await page.getByRole('button', { name: 'Open' }).click();
          const heading = page.locator('h1.file-name');
          await heading.waitFor();
          expect(await heading.textContent()).toBe(name);
          expect(new URL(page.url()).pathname).toBe(`/f/${id}`);
          expect(await page.getByRole('alert').count()).toBe(0);
          const img = page.locator('section.preview img');
          await expect
            .poll(() => img.evaluate((el: HTMLImageElement) => (el.complete ? el.naturalWidth : 0)), {
              timeout: 10_000,
            })
            .toBeGreaterThan(0);
          expect(await img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([120, 80]);
          expect(await img.getAttribute('src')).toBe(`/f/${id}/preview`);
          // Loaded as a document, with JavaScript too: the page's data fetch (/f/<id>.data) is
          // outside the proof cookie's Path /f/<id>, so only a document load can carry it.
          expect(await windowMark(page)).toBeUndefined();

          // The proof is a cookie scripts cannot read, sent back only to this file's pages.
          const proof = (await context.cookies()).find((cookie) => cookie.name === `share_${id}`);
          expect(proof).toMatchObject({ httpOnly: true, path: `/f/${id}`, sameSite: 'Lax' });
          if (js) expect(await page.evaluate(() => document.cookie)).not.toContain('share_');

          // A reload stays open; the raw link answers the bytes to this browser.
          const again = await page.reload();
          expect(again?.status()).toBe(200);
          expect(await page.locator('h1.file-name').textContent()).toBe(name);
          const raw = await context.request.get(uploaded.rawUrl);
          expect(raw.status()).toBe(200);
          expect(Buffer.from(await raw.body()).equals(png)).toBe(true);
        });

        // Someone else, without the cookie, still gets the form.
        await withContext(js, undefined, async (context) => {
          const page = await context.newPage();
          expect((await page.goto(uploaded.url))?.status()).toBe(401);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Password-protected file');
        });
      },
      STEP_TIMEOUT,
    );

    it(
      `when the owner changes the settings on the file page (${mode}), then "Settings saved." shows, the facts update, and removing the password takes the lock off /files`,
      async () => {
        const name = `settings-${js ? 'js' : 'nojs'}.txt`;
        const uploaded = await app.upload(`settings ${mode}\n`, name, 'text/plain', { password: 'first secret' });
        const id = uploaded.file.id;
        const { password_hash: firstHash } = await fileRow(app, id);

        await withContext(js, app, async (context) => {
          const page = await context.newPage();
          const locked = await openFilesRow(page, app, id);
          expect(await locked.locator('span[aria-label="Password-protected"]').isVisible()).toBe(true);

          const res = await page.goto(uploaded.url);
          expect(res?.status()).toBe(200);
          await ready(page, js, 'form[aria-label="Link settings"]');
          await markWindow(page);
          expect(await page.locator('dd.expiry').textContent()).toBe('no expiry');
          expect(await page.locator('dd.downloads').textContent()).toBe('0');
          const form = page.locator('form[aria-label="Link settings"]');
          expect(await form.getByLabel('Expires').inputValue()).toBe('');
          expect(await form.getByLabel('Expires').locator('option').first().textContent()).toBe('Keep (no expiry)');

          // A limit the server refuses (the browser's own check is switched off, as an old browser would lack it).
          await form.evaluate((el: HTMLFormElement) => (el.noValidate = true));
          await form.getByLabel('Maximum downloads').fill('0');
          // With JavaScript the form is saved in place through tRPC (ADR 0075); without, posted to the page.
          const refused = page.waitForResponse(
            (r) =>
              r.request().method() === 'POST' &&
              (js
                ? new URL(r.url()).pathname === '/trpc/files.updateShare'
                : new URL(r.url()).pathname.replace(/\.data$/, '') === `/f/${id}`),
          );
          await form.getByRole('button', { name: 'Save settings' }).click();
          expect((await refused).status()).toBe(400);
          await form.getByRole('alert').waitFor();
          expect(await form.getByRole('alert').textContent()).toBe('Maximum downloads must be at least 1');
          expect(await fileRow(app, id)).toMatchObject({ max_downloads: null, expires_at: null });

          // At most 4 downloads, expiring an hour from now.
          await ready(page, js, 'form[aria-label="Link settings"]');
          await form.getByLabel('Maximum downloads').fill('4');
          await form.getByLabel('Expires').selectOption({ label: '1 hour from now' });
          const before = Date.now();
          await form.getByRole('button', { name: 'Save settings' }).click();
          const saved = form.getByRole('status');
          await saved.waitFor();
          expect(await saved.textContent()).toBe('Settings saved.');
          expect(await form.getByRole('alert').count()).toBe(0);
          const after = Date.now();
          const row = await fileRow(app, id);
          expect(row).toMatchObject({ max_downloads: 4, downloads: 0, password_hash: firstHash });
          const expiresAt = millis(row.expires_at);
          expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
          expect(expiresAt).toBeLessThanOrEqual(after + 3600_000 + 1000);
          await expect.poll(() => page.locator('dd.downloads').textContent()).toBe('0 / 4');
          expect(expiryTexts(expiresAt, before, Date.now())).toContain(await page.locator('dd.expiry').textContent());
          expect(await page.locator('dd.expiry').textContent()).toBe('expires in 1 hour');
          expect(await form.getByLabel('Maximum downloads').inputValue()).toBe('4');
          // Back to "keep": the next save must not push the expiry on again.
          expect(await form.getByLabel('Expires').inputValue()).toBe('');
          expect(await windowMark(page)).toBe(js ? 'same page' : undefined);

          // Remove the password: the visitor needs none, and the list shows no lock.
          await ready(page, js, 'form[aria-label="Link settings"]');
          await form.getByLabel('Remove the password').check();
          await form.getByRole('button', { name: 'Save settings' }).click();
          const passwordFact = page
            .locator('dl.facts div', { has: page.locator('dt', { hasText: 'Password' }) })
            .locator('dd');
          await expect.poll(() => passwordFact.textContent()).toBe('No');
          expect(await form.getByRole('status').textContent()).toBe('Settings saved.');
          expect(await form.getByLabel('Remove the password').count()).toBe(0);
          expect(await fileRow(app, id)).toMatchObject({ password_hash: null, max_downloads: 4 });
          expect(millis((await fileRow(app, id)).expires_at)).toBe(expiresAt);
          expect(await windowMark(page)).toBe(js ? 'same page' : undefined);

          const listed = await openFilesRow(page, app, id);
          expect(await listed.locator('span[aria-label="Password-protected"]').count()).toBe(0);
          expect(await listed.locator('td.downloads').innerText()).toBe('0 · 0 / 4');
          expect(await listed.locator('td.expires').textContent()).toBe('expires in 1 hour');
        });

        await withContext(js, undefined, async (context) => {
          const page = await context.newPage();
          expect((await page.goto(uploaded.url))?.status()).toBe(200);
          expect(await page.locator('h1.file-name').textContent()).toBe(name);
        });
      },
      STEP_TIMEOUT,
    );

    it(
      `when a visitor downloads a file limited to 2 downloads twice (${mode}), then the next visit of its link shows "This link has reached its download limit." with status 410`,
      async () => {
        const name = `limited-${js ? 'js' : 'nojs'}.txt`;
        const content = Buffer.from(`only twice ${mode}\n`);
        const uploaded = await app.upload(content, name, 'text/plain', { maxDownloads: '2' });
        const id = uploaded.file.id;

        await withContext(js, undefined, async (context) => {
          const page = await context.newPage();
          for (const left of [2, 1]) {
            const res = await page.goto(uploaded.url);
            expect(res?.status()).toBe(200);
            await ready(page, js, 'main');
            expect(await page.locator('h1.file-name').textContent()).toBe(name);
            // No preview: the file leaves a limited link only as a download (ADR 0066).
            expect(await page.locator('section.preview').innerText()).toBe(
              `No preview: this link allows ${left} more ${left === 1 ? 'download' : 'downloads'}, and gives the file only as a download.`,
            );
            expect(await page.locator('pre.text-preview').count()).toBe(0);
            const downloading = page.waitForEvent('download');
            await page.getByRole('link', { name: 'Download' }).click();
            const download = await downloading;
            expect(download.suggestedFilename()).toBe(name);
            expect(fs.readFileSync((await download.path())!).equals(content)).toBe(true);
            expect(await fileRow(app, id)).toMatchObject({ downloads: 3 - left, max_downloads: 2 });
          }

          const gone = await page.goto(uploaded.url);
          expect(gone?.status()).toBe(410);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Link gone');
          expect(await page.locator('main').innerText()).toContain('This link has reached its download limit.');
          expect(await page.content()).not.toContain(name);

          const raw = await page.goto(uploaded.rawUrl);
          expect(raw?.status()).toBe(410);
          expect(await page.locator('body').innerText()).toContain('This link has reached its download limit.');
          expect(await fileRow(app, id)).toMatchObject({ downloads: 2 });
        });

        // The owner's list counts them, and the two looks at the page apart (written within a second).
        await withContext(js, app, async (context) => {
          const page = await context.newPage();
          await expect
            .poll(async () => (await openFilesRow(page, app, id)).locator('td.downloads').innerText())
            .toBe('2 · 2 / 2');
        });
      },
      STEP_TIMEOUT,
    );

    it(
      `when a link set to expire in 60 seconds is opened after its time (${mode}), then its page and raw link show "This link has expired." with status 410`,
      async () => {
        const name = `brief-${js ? 'js' : 'nojs'}.txt`;
        const uploaded = await clockApp.upload(`gone soon ${mode}\n`, name, 'text/plain', { expiresIn: '60' });

        await withContext(js, undefined, async (context) => {
          const page = await context.newPage();
          expect((await page.goto(uploaded.url))?.status()).toBe(200);
          expect(await page.locator('h1.file-name').textContent()).toBe(name);

          clock.advance(61_000);

          const res = await page.goto(uploaded.url);
          expect(res?.status()).toBe(410);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Link gone');
          expect(await page.title()).toBe('Link gone · File sharing');
          expect(await page.locator('main').innerText()).toContain('This link has expired.');
          expect(await page.content()).not.toContain(name);

          const raw = await page.goto(uploaded.rawUrl);
          expect(raw?.status()).toBe(410);
          expect(await page.locator('body').innerText()).toContain('This link has expired.');
        });

        // The owner sees it expired in the list, and following its link shows the same page.
        await withContext(js, clockApp, async (context) => {
          const page = await context.newPage();
          const listed = await openFilesRow(page, clockApp, uploaded.file.id);
          expect(await listed.locator('td.expires').textContent()).toBe('expired');
          await ready(page, js, 'main form');
          await listed.getByRole('link', { name }).click();
          await page.waitForURL(uploaded.url);
          await page.getByRole('heading', { name: 'Link gone' }).waitFor();
          expect(await page.locator('main').innerText()).toContain('This link has expired.');
        });
        expect(await fileRow(clockApp, uploaded.file.id)).toMatchObject({ downloads: 0 });
      },
      STEP_TIMEOUT,
    );
  });
}
