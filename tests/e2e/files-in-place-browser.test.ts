// My files and a file's page in Chromium (ADR 0075): with JavaScript, renaming, deleting,
// searching and paging happen in place through the internal tRPC router (the page is never
// loaded again, and the tRPC call is what did it); without JavaScript the same flows work
// through the plain forms and links.
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { CHROMIUM_PATH, hasChromium, launchBrowser } from '../helpers/browser';
import { snap, waitForHydration } from '../helpers/pages-browser';

const SKIP_REASON = hasChromium
  ? ''
  : ` — SKIPPED: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
if (!hasChromium) console.warn(`tests/e2e/files-in-place-browser.test.ts${SKIP_REASON}`);

const STEP_TIMEOUT = 120_000;
/** How long a check waits for the page to show what it should (two shared cores). */
const POLL = { timeout: 15_000 };

let app: TestApp;
let browser: Browser;
let cookie: string;

beforeAll(async () => {
  if (!hasChromium) return;
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await app.createUser('erin');
  cookie = await app.login('erin');
  // 101 shots (a page is 100 files, so one shot is on the second page), then two notes, newest.
  const shots = Array.from({ length: 101 }, (_, i) => `shot-${String(i).padStart(3, '0')}.txt`);
  for (let i = 0; i < shots.length; i += 10) await Promise.all(shots.slice(i, i + 10).map((name) => upload(name)));
  await upload('notes-alpha.txt');
  await upload('notes-beta.txt');
}, STEP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function upload(name: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(`content of ${name}\n`, name, 'text/plain'),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

async function fileName(id: string): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/files/${id}`, { headers: { cookie } });
  return ((await res.json()) as { file: { originalName: string } }).file.originalName;
}

interface Visit {
  page: Page;
  /** The paths of the tRPC procedures the page called ("files.rename"), in order. */
  trpcCalls: string[];
  /** Whether the window is still the one first loaded (no page load since). */
  samePage: () => Promise<boolean>;
}

/** Erin's browser on `path`, with JavaScript or without; `body` runs with it. */
async function visit(js: boolean, path: string, body: (visit: Visit) => Promise<void>): Promise<void> {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  const page = await context.newPage();
  const trpcCalls: string[] = [];
  page.on('request', (request: Request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/trpc/')) trpcCalls.push(...pathname.slice('/trpc/'.length).split(','));
  });
  try {
    await page.goto(`${app.url}${path}`);
    if (js) await waitForHydration(page, 'main form');
    await page.evaluate(() => ((window as unknown as { firstLoad?: boolean }).firstLoad = true));
    const samePage = () => page.evaluate(() => (window as unknown as { firstLoad?: boolean }).firstLoad === true);
    await body({ page, trpcCalls, samePage });
  } finally {
    await context.close();
  }
}

/** The names of the rows My files shows, in order. */
async function rowNames(page: Page): Promise<string[]> {
  return page.locator('tr[data-file-id] td.name > a').evaluateAll((links) => links.map((a) => a.textContent ?? ''));
}

describe.skipIf(!hasChromium)('My files and a file’s page in place', () => {
  // First: the files below are added by the later tests.
  it('when the owner searches My files and pages through them, then with JavaScript files.list fetches the right rows without a page load and the address says which, and without JavaScript the form and links do the same', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    for (const js of [true, false]) {
      await visit(js, '/files', async ({ page, trpcCalls, samePage }) => {
        expect((await rowNames(page)).slice(0, 2)).toEqual(['notes-beta.txt', 'notes-alpha.txt']);
        await page.getByRole('search').getByLabel('Search').fill('notes');
        await page.getByRole('search').getByRole('button', { name: 'Show' }).click();
        await expect.poll(() => rowNames(page), POLL).toEqual(['notes-beta.txt', 'notes-alpha.txt']);
        const searched = new URL(page.url());
        expect(searched.pathname).toBe('/files');
        expect(searched.searchParams.get('q')).toBe('notes');

        await page.getByRole('search').getByLabel('Search').fill('');
        await page.getByRole('search').getByRole('button', { name: 'Show' }).click();
        await expect.poll(() => rowNames(page).then((names) => names.length), POLL).toBe(100);
        await page.getByRole('link', { name: 'Older files' }).click();
        // 103 files: three of the first shots (sent ten at a time) are on the second page.
        await expect.poll(() => rowNames(page).then((names) => names.length), POLL).toBe(3);
        const olderRows = await rowNames(page);
        for (const name of olderRows) expect(name).toMatch(/^shot-00\d\.txt$/);
        const older = page.url();
        expect(new URL(older).searchParams.get('cursor')).toBeTruthy();
        expect(await page.getByText('Showing 3 older files of your').count()).toBe(1);
        if (js) {
          expect(trpcCalls.filter((call) => call === 'files.list').length).toBeGreaterThanOrEqual(3);
          expect(await samePage()).toBe(true);
          await snap(page, 'files-paged-in-place');
        } else {
          expect(trpcCalls).toEqual([]);
        }
        // The address is the page: opened afresh, it shows the same rows.
        await page.goto(older);
        expect(await rowNames(page)).toEqual(olderRows);
        await page.getByRole('link', { name: 'Newest files' }).click();
        await expect
          .poll(() => rowNames(page).then((names) => names.slice(0, 2)), POLL)
          .toEqual(['notes-beta.txt', 'notes-alpha.txt']);
      });
    }
  });

  it('when the owner renames a file, then with JavaScript the new name shows at once and files.rename does it without a page load, a refused name brings the old one back, and without JavaScript the form renames it', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await upload('draft.txt');
    await visit(true, `/f/${id}`, async ({ page, trpcCalls, samePage }) => {
      const form = page.locator('form[aria-label="Rename"]');
      // The answer held back: the page shows the new name before it comes.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/trpc/files.rename**', async (route) => {
        await held;
        await route.continue();
      });
      await form.getByLabel('Name').fill('final report.txt');
      await form.getByRole('button', { name: 'Rename' }).click();
      await expect.poll(() => page.locator('h1.file-name').textContent(), POLL).toBe('final report.txt');
      expect(await fileName(id)).toBe('draft.txt');
      release();
      await form.getByRole('status').filter({ hasText: 'File renamed.' }).waitFor();
      expect(await fileName(id)).toBe('final report.txt');
      expect(trpcCalls).toContain('files.rename');
      expect(await samePage()).toBe(true);
      await expect.poll(() => page.title(), POLL).toBe('final report.txt · File sharing');
      await snap(page, 'file-renamed-in-place');

      // A name that is nothing once cleaned: refused, and the page names the file as before.
      await page.unroute('**/trpc/files.rename**');
      await form.getByLabel('Name').fill('   ');
      await form.getByRole('button', { name: 'Rename' }).click();
      await form.getByRole('alert').waitFor();
      expect(await page.locator('h1.file-name').textContent()).toBe('final report.txt');
      expect(await fileName(id)).toBe('final report.txt');
      expect(await samePage()).toBe(true);
    });

    await visit(false, `/f/${id}`, async ({ page, trpcCalls }) => {
      const form = page.locator('form[aria-label="Rename"]');
      await form.getByLabel('Name').fill('minutes.txt');
      await form.getByRole('button', { name: 'Rename' }).click();
      await form.getByRole('status').filter({ hasText: 'File renamed.' }).waitFor();
      expect(await page.locator('h1.file-name').textContent()).toBe('minutes.txt');
      expect(trpcCalls).toEqual([]);
    });
    expect(await fileName(id)).toBe('minutes.txt');
  });

  it('when the owner saves the link settings with JavaScript, then files.updateShare saves them in place', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await upload('limited.txt');
    await visit(true, `/f/${id}`, async ({ page, trpcCalls, samePage }) => {
      const form = page.locator('form[aria-label="Link settings"]');
      await form.getByLabel('Maximum downloads').fill('3');
      await form.getByRole('button', { name: 'Save settings' }).click();
      await form.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      await expect.poll(() => page.locator('dd.downloads').textContent(), POLL).toBe('0 / 3');
      expect(trpcCalls).toContain('files.updateShare');
      expect(await samePage()).toBe(true);
    });
  });

  it('when a delete in place fails, then the row goes at once and comes back with an error', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await upload('keep-me.txt');
    await visit(true, '/files', async ({ page, trpcCalls }) => {
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/trpc/files.delete**', async (route) => {
        await held;
        await route.abort('connectionfailed');
      });
      const row = page.locator(`tr[data-file-id="${id}"]`);
      await row.getByRole('button', { name: 'Delete keep-me.txt' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
      await row.waitFor({ state: 'detached' });
      release();
      await page.getByRole('alert').waitFor();
      await row.waitFor();
      expect(trpcCalls).toContain('files.delete');
    });
    expect(await fileName(id)).toBe('keep-me.txt');
  });
});
