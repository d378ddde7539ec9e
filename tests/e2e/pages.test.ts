// The pages in a real browser (Debian's Chromium through playwright-core):
// the whole journey of a user with JavaScript on (progress, delete without reload), then
// the same journey with JavaScript off (plain forms). One browser for the file; a
// screenshot of every page goes to test-output/screenshots/.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { answerDialog, snap, waitForHydration } from '../helpers/pages-browser';
import { apiUpload, makePng } from '../helpers/pages-fixtures';

const STEP_TIMEOUT = 120_000; // two shared cores: other suites run at the same time

let app: TestApp;
let browser: Browser;

setUpBrowserSuite({ timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  await app.createUser('erin');
  await app.createUser('frank');
  await app.createUser('gina');
  await app.createUser('hana');
  await app.createUser('ivy');
});

async function fileIdsOf(username: string): Promise<string[]> {
  const rows = await app.rows('select f.id from files f join users u on u.id = f.user_id where u.username = ?', [
    username,
  ]);
  return rows.map((row) => String(row.id));
}

/** The id in a /f/<id> address. */
function fileIdFrom(url: string): string {
  const id = /\/f\/([A-Za-z0-9_-]+)$/.exec(new URL(url).pathname)?.[1];
  if (!id) throw new Error(`not a share page: ${url}`);
  return id;
}

async function fillLogin(page: Page, username: string, password: string) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.locator('main').getByRole('button', { name: 'Log in' }).click();
}

describe.skipIf(!hasChromium)(`the pages in Chromium${SKIP_NOTE}`, () => {
  describe('with JavaScript on', () => {
    let context: BrowserContext;
    let page: Page;
    let bigId: string;
    let imageId: string;
    const big = randomBytes(3 * 1024 * 1024);
    const png = makePng(320, 200);

    beforeAll(async () => {
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.setDefaultTimeout(60_000);
    });
    afterAll(() => context?.close());

    it(
      'when a visitor opens the home page, then it explains the service and offers to log in',
      async () => {
        const res = await page.goto(`${app.url}/`);
        expect(res?.status()).toBe(200);
        await expect(page.title()).resolves.toBe('File sharing');
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Share files with a link');
        expect(await page.locator('main').getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);
        await snap(page, 'home');
      },
      STEP_TIMEOUT,
    );

    it(
      'when they log in with a wrong password, then the form says so; with the right one, they land on their files',
      async () => {
        await page.locator('main').getByRole('link', { name: 'Log in' }).click();
        await page.waitForURL(`${app.url}/login`);
        await waitForHydration(page, 'main form');
        await snap(page, 'login');

        await fillLogin(page, 'erin', 'definitely wrong');
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).toBe('Invalid username or password');
        expect(await page.getByLabel('Username').inputValue()).toBe('erin');
        // Ready for the next try: the wrong password is gone and the cursor waits in its field.
        expect(await page.getByLabel('Password').inputValue()).toBe('');
        await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'password');
        await snap(page, 'login-error');

        await fillLogin(page, 'erin', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/files`);
        await page.getByRole('heading', { name: 'My files' }).waitFor();
        expect(await page.getByText('No files yet').isVisible()).toBe(true);
        const cookie = (await context.cookies()).find((c) => c.name === 'token');
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      },
      STEP_TIMEOUT,
    );

    it(
      'when they upload a few MB through the page, then a progress bar counts up and they land on the file page',
      async () => {
        await page.getByRole('navigation').getByRole('link', { name: 'Upload' }).click();
        await page.waitForURL(`${app.url}/upload`);
        await waitForHydration(page, 'main form');
        await snap(page, 'upload');

        await page
          .locator('input[type=file]')
          .setInputFiles({ name: 'holiday-video.bin', mimeType: 'application/octet-stream', buffer: big });
        expect(await page.getByText('holiday-video.bin · 3 MiB').isVisible()).toBe(true);

        // Slow the upload down (about 1 MB/s) so the progress can be seen.
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 20,
          downloadThroughput: -1,
          uploadThroughput: 1024 * 1024,
        });
        try {
          await page.locator('main').getByRole('button', { name: 'Upload' }).click();
          const progress = page.locator('progress');
          await progress.waitFor();
          // The whole request is counted: at least the file's bytes.
          expect(Number(await progress.getAttribute('max'))).toBeGreaterThanOrEqual(big.length);
          // A percentage between the first and the last byte: the bar really moves.
          await page.waitForFunction(() => {
            const match = /\((\d+)%\)/.exec(document.querySelector('.progress')?.textContent ?? '');
            return !!match && Number(match[1]) > 0 && Number(match[1]) < 100;
          });
          expect(await page.locator('main').getByRole('button', { name: 'Uploading…' }).isDisabled()).toBe(true);
          await snap(page, 'upload-progress');
          await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/, { timeout: 90_000 });
        } finally {
          await cdp.send('Network.emulateNetworkConditions', {
            offline: false,
            latency: 0,
            downloadThroughput: -1,
            uploadThroughput: -1,
          });
          await cdp.detach();
        }

        bigId = fileIdFrom(page.url());
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('holiday-video.bin');
        expect(await page.getByText('3 MiB', { exact: true }).isVisible()).toBe(true);
        expect(await page.getByText('No preview for this type of file').isVisible()).toBe(true);
        const [row] = await app.rows('select size, stored_name from files where id = ?', [bigId]);
        expect(row).toEqual({ size: big.length, stored_name: `${bigId}.bin` });
        expect(await app.storedFiles()).toContain(`${bigId}.bin`);
      },
      STEP_TIMEOUT,
    );

    it(
      'when they upload an image, then its share link shows the picture to someone with no session',
      async () => {
        await page.goto(`${app.url}/upload`);
        await waitForHydration(page, 'main form');
        await page
          .locator('input[type=file]')
          .setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: png });
        await page.locator('main').getByRole('button', { name: 'Upload' }).click();
        await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/, { timeout: 60_000 });
        imageId = fileIdFrom(page.url());
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('sunset.png');

        const stranger = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        try {
          const view = await stranger.newPage();
          const res = await view.goto(`${app.url}/f/${imageId}`);
          expect(res?.status()).toBe(200);
          await view.waitForFunction(() => {
            const img = document.querySelector<HTMLImageElement>('.preview img');
            return !!img && img.complete && img.naturalWidth > 0;
          });
          const size = await view
            .locator('.preview img')
            .evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
          expect(size).toEqual([320, 200]);
          expect(await view.getByRole('img', { name: 'sunset.png' }).isVisible()).toBe(true);
          const download = await view.getByRole('link', { name: 'Download' }).getAttribute('href');
          expect(new URL(download!, view.url()).href).toBe(`${app.url}/f/${imageId}/raw?download=1`);
          // A stranger is offered to log in, not the owner's menu.
          expect(await view.getByRole('navigation').getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);
          await snap(view, 'file-view-image');
          await view.setViewportSize({ width: 390, height: 844 });
          await snap(view, 'file-view-image-phone');
        } finally {
          await stranger.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      'when they delete a file on /files and confirm, then its row goes away without reloading the page',
      async () => {
        await page.getByRole('navigation').getByRole('link', { name: 'My files' }).click();
        await page.waitForURL(`${app.url}/files`);
        await waitForHydration(page, 'main form');
        const row = page.locator(`tr[data-file-id="${bigId}"]`);
        expect(await row.isVisible()).toBe(true);
        expect(await page.locator('tbody tr').count()).toBe(2);
        expect(await page.locator('.storage-usage').textContent()).toContain('by 2 files');
        expect(await row.getByRole('textbox').inputValue()).toBe(`${app.url}/f/${bigId}`);
        await snap(page, 'files');
        await page.setViewportSize({ width: 390, height: 844 });
        await snap(page, 'files-phone');
        await page.setViewportSize({ width: 1280, height: 800 });

        // A marker on window survives only if the page is not reloaded.
        await page.evaluate(() => ((window as unknown as { pagesTestMarker: string }).pagesTestMarker = 'still here'));

        // Cancelling the confirmation deletes nothing.
        await row.getByRole('button', { name: 'Delete holiday-video.bin' }).click();
        await answerDialog(page, 'Cancel');
        await page.waitForTimeout(300);
        expect(await row.isVisible()).toBe(true);
        expect(await fileIdsOf('erin')).toContain(bigId);

        await row.getByRole('button', { name: 'Delete holiday-video.bin' }).click();
        const question = await answerDialog(page, 'Delete');
        await row.waitFor({ state: 'detached' });
        expect(question).toContain('holiday-video.bin');
        expect(await page.getByRole('status').textContent()).toBe('“holiday-video.bin” was deleted.');
        expect(page.url()).toBe(`${app.url}/files`);
        expect(await page.evaluate(() => (window as unknown as { pagesTestMarker?: string }).pagesTestMarker)).toBe(
          'still here',
        );
        expect(await page.locator(`tr[data-file-id="${imageId}"]`).isVisible()).toBe(true);
        expect(await fileIdsOf('erin')).toEqual([imageId]);
        expect(await app.storedFiles()).not.toContain(`${bigId}.bin`);
        // The space used follows, still without a reload.
        await expect.poll(() => page.locator('.storage-usage').textContent()).toContain('by 1 file');
      },
      STEP_TIMEOUT,
    );

    it(
      'when a file was deleted in another tab and they delete it again here, then the page says it was already deleted and drops the row',
      async () => {
        const uploaded = await page.request.post(`${app.url}/api/v1/files`, {
          multipart: { file: { name: 'stale.txt', mimeType: 'text/plain', buffer: Buffer.from('twice\n') } },
        });
        expect(uploaded.status()).toBe(201);
        const staleId = ((await uploaded.json()) as { file: { id: string } }).file.id;
        const other = await context.newPage();
        try {
          await Promise.all(
            [page, other].map(async (tab) => {
              await tab.goto(`${app.url}/files`);
              await waitForHydration(tab, 'main form');
            }),
          );
          await other.getByRole('button', { name: 'Delete stale.txt' }).click();
          await answerDialog(other, 'Delete');
          await other.locator(`tr[data-file-id="${staleId}"]`).waitFor({ state: 'detached' });

          const staleRow = page.locator(`tr[data-file-id="${staleId}"]`);
          expect(await staleRow.isVisible()).toBe(true);
          await staleRow.getByRole('button', { name: 'Delete stale.txt' }).click();
          await answerDialog(page, 'Delete');
          await page.getByRole('alert').waitFor();
          expect(await page.getByRole('alert').textContent()).toBe('“stale.txt” was already deleted.');
          expect(await fileIdsOf('erin')).toEqual([imageId]);
          await staleRow.waitFor({ state: 'detached' });
          // The header marks the page they are on, and only that one.
          const nav = page.getByRole('navigation');
          expect(await nav.getByRole('link', { name: 'My files' }).getAttribute('aria-current')).toBe('page');
          expect(await nav.getByRole('link', { name: 'Upload' }).getAttribute('aria-current')).toBeNull();
          await snap(page, 'files-already-deleted');
        } finally {
          await other.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      'when they open an address that does not exist, then the not-found page answers 404',
      async () => {
        const res = await page.goto(`${app.url}/no/such/page`);
        expect(res?.status()).toBe(404);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
        expect(await page.getByRole('link', { name: 'Go to the home page' }).isVisible()).toBe(true);
        expect(await page.getByRole('link', { name: 'Go to my files' }).isVisible()).toBe(true);
        await snap(page, 'not-found');
      },
      STEP_TIMEOUT,
    );

    it(
      'when they log out from the header and someone else logs in on this browser, then the new user sees only their own files',
      async () => {
        await page.getByRole('navigation').getByRole('link', { name: 'My files' }).click();
        await page.waitForURL(`${app.url}/files`);
        await page.getByRole('link', { name: 'sunset.png' }).waitFor();
        await waitForHydration(page, 'main form');

        await page.getByRole('navigation').getByRole('button', { name: 'Log out' }).click();
        await page.waitForURL(`${app.url}/login`);
        await page.getByRole('navigation').getByRole('link', { name: 'Log in' }).waitFor();
        expect((await context.cookies()).some((c) => c.name === 'token')).toBe(false);

        // Same tab, no reload: the list must come from the new session, not from what erin saw.
        await waitForHydration(page, 'main form');
        await fillLogin(page, 'gina', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/files`);
        await page.getByRole('heading', { name: 'My files' }).waitFor();
        await page.waitForTimeout(300);
        expect(await page.getByRole('link', { name: 'sunset.png' }).count()).toBe(0);
        expect(await page.getByText('No files yet').isVisible()).toBe(true);
      },
      STEP_TIMEOUT,
    );

    it(
      'when they open /logout, then it only asks, and its button logs out for good',
      async () => {
        const res = await page.goto(`${app.url}/logout`);
        expect(res?.status()).toBe(200);
        await waitForHydration(page, 'main form');
        // Opening /logout alone does not log out.
        expect((await context.cookies()).some((c) => c.name === 'token')).toBe(true);
        await snap(page, 'logout');

        await page.locator('main').getByRole('button', { name: 'Log out' }).click();
        await page.waitForURL(`${app.url}/login`);
        await page.getByRole('heading', { name: 'Log in' }).waitFor();
        expect((await context.cookies()).some((c) => c.name === 'token')).toBe(false);
        expect(await page.getByRole('navigation').getByRole('link', { name: 'Log in' }).isVisible()).toBe(true);

        await page.goto(`${app.url}/files`);
        expect(page.url()).toBe(`${app.url}/login?redirectTo=%2Ffiles`);
      },
      STEP_TIMEOUT,
    );
  });

  describe('a long list, a page at a time, with JavaScript on', () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.setDefaultTimeout(60_000);
    });
    afterAll(() => context?.close());

    it(
      'when they follow "Older files" and "Newest files", then the pages change without a reload, focus starts at the heading, and a delete there keeps them on that page',
      async () => {
        // 101 files: the 100 newest on the first page, the oldest alone on the second.
        const cookie = await app.login('ivy');
        const oldest = await apiUpload(app, cookie, { filename: 'oldest.txt', type: 'text/plain', content: 'first' });
        for (let i = 0; i < 100; i += 10) {
          await Promise.all(
            Array.from({ length: 10 }, (_, j) =>
              apiUpload(app, cookie, { filename: `shot-${i + j}.png`, type: 'image/png', content: `${i + j}` }),
            ),
          );
        }
        await page.goto(`${app.url}/login`);
        await fillLogin(page, 'ivy', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/files`);
        // The URL can change before the list is on screen (and the login form also matches 'main form').
        await page.getByText('Showing your 100 newest files of 101.').waitFor();
        await waitForHydration(page, 'main form');
        const rows = page.locator('tbody tr');
        expect(await rows.count()).toBe(100);
        expect(await page.locator(`tr[data-file-id="${oldest.id}"]`).count()).toBe(0);
        expect(await page.getByText('Showing your 100 newest files of 101.').isVisible()).toBe(true);
        // A marker on window survives only if the page is not reloaded.
        await page.evaluate(() => ((window as unknown as { pagesTestMarker: string }).pagesTestMarker = 'still here'));

        await page.getByRole('link', { name: 'Older files' }).click();
        await page.waitForURL(/\/files\?cursor=[A-Za-z0-9_-]+$/);
        await page.locator(`tr[data-file-id="${oldest.id}"]`).waitFor();
        expect(await rows.count()).toBe(1);
        expect(await page.getByRole('link', { name: 'Older files' }).count()).toBe(0);
        expect(await page.evaluate(() => (window as unknown as { pagesTestMarker?: string }).pagesTestMarker)).toBe(
          'still here',
        );
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('My files');
        const secondPage = page.url();
        await snap(page, 'files-older-page');

        // Deleting here keeps them here: the page is loaded again with its cursor.
        await page.getByRole('button', { name: 'Delete oldest.txt' }).click();
        await answerDialog(page, 'Delete');
        await page.locator(`tr[data-file-id="${oldest.id}"]`).waitFor({ state: 'detached' });
        await page.getByText('No older files.').waitFor();
        expect(page.url()).toBe(secondPage);
        expect(await page.getByRole('status').textContent()).toBe('“oldest.txt” was deleted.');
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('My files');

        await page.getByRole('link', { name: 'Newest files' }).click();
        await page.waitForURL(`${app.url}/files`);
        await expect.poll(() => rows.count()).toBe(100);
        // The first page kept from before the delete may show a moment, until it is read again.
        await expect.poll(() => page.getByRole('link', { name: 'Older files' }).count()).toBe(0);
        expect(await page.getByRole('link', { name: 'Newest files' }).count()).toBe(0);
        // What was said on the other page stays there.
        expect(await page.getByText('“oldest.txt” was deleted.').count()).toBe(0);
        expect(await page.evaluate(() => (window as unknown as { pagesTestMarker?: string }).pagesTestMarker)).toBe(
          'still here',
        );
      },
      STEP_TIMEOUT,
    );
  });

  describe('on a phone (390 × 844)', () => {
    const PHONE_WIDTH = 390;
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({ viewport: { width: PHONE_WIDTH, height: 844 } });
      page = await context.newPage();
      page.setDefaultTimeout(60_000);
    });
    afterAll(() => context?.close());

    /** How far the page scrolls sideways: 0 when everything fits the screen. */
    const sidewaysOverflow = async () =>
      (await page.evaluate(() => document.documentElement.scrollWidth)) - PHONE_WIDTH;

    it(
      'when every page is opened, even with a long file name, then none scrolls sideways and the share link shows as text',
      async () => {
        await page.goto(`${app.url}/login`);
        expect(await sidewaysOverflow()).toBe(0);
        await fillLogin(page, 'hana', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/files`);

        await page.goto(`${app.url}/upload`);
        await waitForHydration(page);
        const longName = `Quarterly report — final (v2) ünïcødé very long name that goes on and on and on ${'x'.repeat(60)}.txt`;
        await page
          .locator('input[type=file]')
          .setInputFiles({ name: longName, mimeType: 'text/plain', buffer: Buffer.from('report\n') });
        expect(await sidewaysOverflow()).toBe(0);
        await snap(page, 'upload-phone');
        await page.locator('main').getByRole('button', { name: 'Upload' }).click();
        await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/);
        const id = fileIdFrom(page.url());
        expect(await sidewaysOverflow()).toBe(0);
        expect(await page.getByRole('textbox', { name: 'Share link' }).inputValue()).toBe(`${app.url}/f/${id}`);
        await snap(page, 'file-view-phone');

        await page.goto(`${app.url}/files`);
        expect(await page.getByRole('link', { name: longName }).isVisible()).toBe(true);
        expect(await page.getByRole('textbox', { name: `Share link for ${longName}` }).inputValue()).toBe(
          `${app.url}/f/${id}`,
        );
        expect(await sidewaysOverflow()).toBe(0);
        await snap(page, 'files-phone-long-name');
      },
      STEP_TIMEOUT,
    );
  });

  describe('with JavaScript off', () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      page.setDefaultTimeout(60_000);
    });
    afterAll(() => context?.close());

    it(
      'when a user logs in, uploads, deletes and logs out with plain forms, then every step works',
      async () => {
        // Log in, coming from a protected page: the form brings them back there.
        await page.goto(`${app.url}/upload`);
        expect(page.url()).toBe(`${app.url}/login?redirectTo=%2Fupload`);
        await fillLogin(page, 'frank', 'wrong password');
        await page.getByRole('alert').waitFor();
        expect(await page.getByRole('alert').textContent()).toBe('Invalid username or password');
        await fillLogin(page, 'frank', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/upload`);

        // Upload: the form posts multipart to /upload and the answer redirects to the file page.
        const content = Buffer.from('Minutes of the meeting, without JavaScript.\n');
        await page
          .locator('input[type=file]')
          .setInputFiles({ name: 'minutes.txt', mimeType: 'text/plain', buffer: content });
        await page.locator('main').getByRole('button', { name: 'Upload' }).click();
        await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/);
        const id = fileIdFrom(page.url());
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('minutes.txt');
        expect(await page.locator('pre.text-preview').textContent()).toBe(content.toString());
        expect(await fileIdsOf('frank')).toEqual([id]);
        await snap(page, 'file-view-text-nojs');

        // Delete from the list: without JavaScript a confirmation page asks, then the list names the file.
        await page.getByRole('navigation').getByRole('link', { name: 'My files' }).click();
        await page.waitForURL(`${app.url}/files`);
        expect(await page.getByRole('link', { name: 'minutes.txt' }).isVisible()).toBe(true);
        await snap(page, 'files-nojs');
        await page.getByRole('button', { name: 'Delete minutes.txt' }).click();
        await page.waitForURL(/\/files\/[A-Za-z0-9_-]+\/delete/);
        await page.getByText('Delete “minutes.txt”? Its share link will stop working.').waitFor();
        await page.locator('main').getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(/\/files\?deleted=minutes\.txt$/);
        await page.getByText('“minutes.txt” was deleted.').waitFor();
        await page.getByText('No files yet').waitFor();
        expect(await fileIdsOf('frank')).toEqual([]);

        // Log out with the header's button.
        await page.getByRole('navigation').getByRole('button', { name: 'Log out' }).click();
        await page.waitForURL(`${app.url}/login`);
        expect((await context.cookies()).some((c) => c.name === 'token')).toBe(false);
        await page.goto(`${app.url}/files`);
        expect(page.url()).toBe(`${app.url}/login?redirectTo=%2Ffiles`);
      },
      STEP_TIMEOUT,
    );

    it(
      "when a user logs out and presses Back, then their files are not shown again from the browser's cache: Back asks to log in",
      async () => {
        await page.goto(`${app.url}/login`);
        await fillLogin(page, 'frank', DEFAULT_PASSWORD);
        await page.waitForURL(`${app.url}/files`);
        const uploaded = await page.request.post(`${app.url}/api/v1/files`, {
          multipart: {
            file: { name: 'payslip.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 private') },
          },
        });
        expect(uploaded.status()).toBe(201);
        await page.goto(`${app.url}/files`);
        expect(await page.getByRole('link', { name: 'payslip.pdf' }).isVisible()).toBe(true);

        await page.getByRole('navigation').getByRole('button', { name: 'Log out' }).click();
        await page.waitForURL(`${app.url}/login`);
        await page.goBack();
        await page.waitForLoadState();
        expect(await page.getByText('payslip.pdf').count()).toBe(0);
        expect(page.url()).toBe(`${app.url}/login?redirectTo=%2Ffiles`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Log in');
      },
      STEP_TIMEOUT,
    );
  });
});
