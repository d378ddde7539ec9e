// Several files and folders from the upload page in a real browser (Debian's Chromium through
// playwright-core), JavaScript on (ADR 0039): each file goes as a resumable upload into one
// collection, the page shows the progress of each and of all, and the browser lands on the
// collection's page. The browser's upload speed is slowed down (DevTools network emulation) so
// that the progress on the way is there to be seen; every state the list of files shows is
// recorded as it changes.
//
// The folder dropped is a real one: DevTools' Input.dispatchDragEvent drops a path of the disk,
// as the desktop does, and the page walks it with webkitGetAsEntry(). (A DataTransfer built in
// the page, as playwright's drop() builds it, holds files only: its items give no entries, so it
// cannot stand for a folder.) The folder picker is chosen through playwright's file chooser with
// a directory, as a person picks one in the dialog.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, CDPSession, Page, Request } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, type TestApp } from '../helpers/app';
import { hasChromium, screenshotPath } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';
import { checkWithUnzip, readWithYauzl, sha256 } from '../helpers/zip-archives';

/** The browser's upload speed (bytes per second): a few seconds for the folder of 20 files. */
const UPLOAD_SPEED = 1024 * 1024;
const COLLECTION_PAGE = /\/c\/([A-Za-z0-9_-]{22})$/;

let app: TestApp;
let browser: Browser;
let filesDir: string;
const cookies = new Map<string, string>();

setUpBrowserSuite({}, async (suite) => {
  ({ app, browser } = suite);
  for (const name of ['dora', 'felix', 'maya', 'quinn', 'rosa']) {
    await app.createUser(name);
    cookies.set(name, await app.login(name));
  }
  filesDir = tempDir('collection-upload-browser-');
});

afterAll(async () => {
  if (filesDir) fs.rmSync(filesDir, { recursive: true, force: true });
});

/** A folder on disk: each file at its path under it, of random bytes; its SHA-256 by path (folder name first). */
function makeFolder(name: string, files: Array<[relativePath: string, bytes: number]>): Map<string, string> {
  const expected = new Map<string, string>();
  for (const [relative, bytes] of files) {
    const content = randomBytes(bytes);
    const file = path.join(filesDir, name, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    expected.set(`${name}/${relative}`, sha256(content));
  }
  return expected;
}

interface RowSeen {
  path: string;
  value: number;
  max: number;
  bytes: string;
  state: string;
}

interface Seen {
  overall: { value: number; max: number } | null;
  rows: RowSeen[];
}

interface UploadPage {
  page: Page;
  cdp: CDPSession;
  /** The requests the page sent that change something (method and path). */
  sent: Request[];
}

/**
 * A browser logged in as `user` on /upload, hydrated, slowed down to UPLOAD_SPEED, recording
 * what the progress shows. No page may throw or log an error beyond those `allowedErrors` match.
 */
async function onUploadPage(
  user: string,
  body: (upload: UploadPage) => Promise<void>,
  allowedErrors: RegExp | null = null,
): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, acceptDownloads: true });
  context.setDefaultTimeout(30_000);
  const cookie = cookies.get(user) ?? '';
  await context.addCookies([
    { name: 'token', value: cookie.slice(cookie.indexOf('=') + 1), url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error' || allowedErrors?.test(message.text())) return;
    errors.push(`console: ${message.text()}`);
  });
  const upload: UploadPage = { page, cdp: await context.newCDPSession(page), sent: [] };
  page.on('request', (request) => {
    if (!['GET', 'HEAD', 'OPTIONS'].includes(request.method())) upload.sent.push(request);
  });
  try {
    await upload.cdp.send('Network.enable');
    await upload.cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: UPLOAD_SPEED,
    });
    const res = await page.goto(`${app.url}/upload`);
    expect(res?.status()).toBe(200);
    await waitForHydration(page, 'main form');
    await page.evaluate(() => {
      const form = document.querySelector('main form');
      if (!form) throw new Error('no upload form');
      const record = () => {
        const bar = form.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
        const rows = Array.from(form.querySelectorAll('.upload-file'), (row) => {
          const progress = row.querySelector('progress');
          return {
            path: row.querySelector('.upload-file-path')?.textContent ?? '',
            value: progress?.value ?? -1,
            max: progress?.max ?? -1,
            bytes: row.querySelector('.upload-file-bytes')?.textContent ?? '',
            state: row.querySelector('.upload-file-state')?.textContent ?? '',
          };
        });
        if (!bar && rows.length === 0) return;
        // Kept in the tab's sessionStorage, written at once: it outlives the page's going to the
        // collection when the upload ends (a call out to the test could be lost with the page).
        const count = Number(sessionStorage.getItem('progress:count') ?? 0);
        sessionStorage.setItem(
          `progress:${count}`,
          JSON.stringify({ overall: bar ? { value: bar.value, max: bar.max } : null, rows }),
        );
        sessionStorage.setItem('progress:count', String(count + 1));
      };
      new MutationObserver(record).observe(form, {
        subtree: true,
        childList: true,
        attributes: true,
        characterData: true,
      });
    });
    await body(upload);
  } finally {
    await context.close();
  }
  expect(errors.join('\n')).toBe('');
}

/** Every state of the upload form's list the page recorded, in order (kept in sessionStorage). */
function seenOn(page: Page): Promise<Seen[]> {
  return page.evaluate(() => {
    const count = Number(sessionStorage.getItem('progress:count') ?? 0);
    return Array.from({ length: count }, (_, n) => JSON.parse(sessionStorage.getItem(`progress:${n}`) ?? 'null'));
  });
}

/** Drops a folder of the disk on the drop area, as the desktop does (a path, not bytes). */
async function dropFolder({ page, cdp }: UploadPage, folder: string): Promise<void> {
  const box = await page.locator('.dropzone-title').boundingBox();
  if (!box) throw new Error('no drop area');
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const data = { items: [], files: [folder], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
}

/** Clicks Upload and waits for the collection's page; its id. */
async function uploadToCollection(page: Page): Promise<string> {
  await Promise.all([
    page.waitForURL(COLLECTION_PAGE, { timeout: 60_000 }),
    page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click(),
  ]);
  return COLLECTION_PAGE.exec(page.url())?.[1] ?? '';
}

interface CollectionSeen {
  title: string;
  expiresAt: string | null;
  maxDownloads: number | null;
  hasPassword: boolean;
  files: Array<{
    path: string;
    file: { originalName: string; expiresAt: string | null; maxDownloads: number | null; hasPassword: boolean };
  }>;
}

async function collectionOf(user: string, id: string): Promise<CollectionSeen> {
  const res = await fetch(`${app.url}/api/v1/collections/${id}`, { headers: { cookie: cookies.get(user) ?? '' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { collection: CollectionSeen }).collection;
}

/** The tus creations the page sent, and any post of the plain form. */
function uploadsSent(sent: Request[]) {
  const paths = sent.map((request) => `${request.method()} ${new URL(request.url()).pathname}`);
  return {
    creations: paths.filter((line) => line === 'POST /api/v1/uploads').length,
    forms: paths.filter((line) => line === 'POST /upload').length,
    collections: paths.filter((line) => line === 'POST /api/v1/collections').length,
  };
}

/** Every file's progress was shown on its way (some bytes of it, not all) and at its end (done, all bytes). */
function expectEachFileShown(seen: Seen[], sizes: Map<string, number>): void {
  for (const [filePath, size] of sizes) {
    const states = seen.flatMap((snapshot) => snapshot.rows.filter((row) => row.path === filePath));
    expect(states.length, filePath).toBeGreaterThan(0);
    expect(states[0], filePath).toMatchObject({ value: 0, max: size });
    expect(
      states.some((row) => row.state === 'Done' && row.value === size && row.max === size),
      filePath,
    ).toBe(true);
  }
  const onTheWay = seen.flatMap((snapshot) => snapshot.rows).filter((row) => row.value > 0 && row.value < row.max);
  expect(onTheWay.length).toBeGreaterThan(0);
  const total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  const overall = seen.map((snapshot) => snapshot.overall).filter((bar) => bar !== null);
  expect(overall.every((bar) => bar.max === total)).toBe(true);
  expect(overall.some((bar) => bar.value > 0 && bar.value < total)).toBe(true);
  expect(Math.max(...overall.map((bar) => bar.value))).toBe(total);
}

describe.skipIf(!hasChromium)('several files and folders from the upload page', () => {
  it('when a folder of 20 files is dropped on the upload page, then each file shows its progress, the browser lands on one collection page listing the 20 files under their folder paths, and its Download all archive holds the 20 files byte-identical', async () => {
    const files: Array<[string, number]> = [];
    for (let n = 1; n <= 20; n++) {
      const folder = n <= 8 ? 'photos/2026' : n <= 14 ? 'photos/2025' : 'notes';
      files.push([`${folder}/item-${String(n).padStart(2, '0')}.bin`, 96 * 1024 + n * 4099]);
    }
    const expected = makeFolder('holiday', files);
    const sizes = new Map(files.map(([relative, bytes]) => [`holiday/${relative}`, bytes]));

    await onUploadPage('dora', async (upload) => {
      const { page } = upload;
      await dropFolder(upload, path.join(filesDir, 'holiday'));
      await expect.poll(() => page.locator('.chosen-files').textContent()).toMatch(/^20 files · /);
      const id = await uploadToCollection(page);

      expectEachFileShown(await seenOn(page), sizes);
      expect(uploadsSent(upload.sent)).toEqual({ creations: 20, forms: 0, collections: 1 });

      // One collection page, named after the folder (the form had no title), its 20 files in
      // their folders: holiday › photos › 2026, …
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('holiday');
      expect(await page.locator('.collection-summary').textContent()).toMatch(/^20 files, /);
      const holiday = page.locator('details', { has: page.locator('summary', { hasText: 'holiday' }) }).first();
      const photos = holiday.locator('details', { has: page.locator('summary', { hasText: 'photos' }) }).first();
      const year = photos.locator('details', { has: page.locator('summary', { hasText: '2026' }) });
      expect(await year.getByRole('link', { name: 'item-01.bin' }).count()).toBe(1);
      for (const filePath of sizes.keys())
        expect(await page.getByRole('link', { name: path.posix.basename(filePath), exact: true }).count()).toBe(1);
      const collection = await collectionOf('dora', id);
      // In the order of their paths, as the page listed them (whatever order the disk keeps them in).
      const inOrder = [...sizes.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      expect((await seenOn(page))[0].rows.map((row) => row.path)).toEqual(inOrder);
      expect(collection.files.map((entry) => entry.path)).toEqual(inOrder);
      await page.screenshot({ path: screenshotPath('collection-upload-folder'), fullPage: true });

      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download all' }).click();
      const download = await downloading;
      const zip = fs.readFileSync((await download.path()) ?? '');
      const read = await readWithYauzl(zip);
      expect(new Map(read.map((entry) => [entry.name, entry.sha256]))).toEqual(expected);
      const unzipped = fs.mkdtempSync(path.join(filesDir, 'unzip-'));
      expect(await checkWithUnzip(zip, unzipped)).toEqual(expected);
    });
  }, 120_000);

  it('when a folder is chosen with "Choose a folder", then its files go into one collection at their paths, with the title and link options of the form on the collection and each file', async () => {
    makeFolder('minutes', [
      ['2026/january.txt', 40_000],
      ['2026/february.txt', 50_000],
      ['readme.txt', 30_000],
    ]);
    await onUploadPage('felix', async (upload) => {
      const { page } = upload;
      await page.getByLabel('Collection title').fill('Board minutes');
      await page.getByLabel('Expires').selectOption({ label: '1 day' });
      await page.getByLabel('Maximum downloads').fill('5');
      await page.getByLabel('Password', { exact: true }).fill('board only');
      const choosing = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Choose a folder' }).click();
      await (await choosing).setFiles(path.join(filesDir, 'minutes'));
      await expect.poll(() => page.locator('.chosen-files').textContent()).toMatch(/^3 files · /);
      const id = await uploadToCollection(page);

      expect(uploadsSent(upload.sent)).toEqual({ creations: 3, forms: 0, collections: 1 });
      // The owner opens their own collection without its password.
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Board minutes');
      const collection = await collectionOf('felix', id);
      expect(collection).toMatchObject({ title: 'Board minutes', maxDownloads: 5, hasPassword: true });
      expect(collection.files.map((entry) => entry.path)).toEqual([
        'minutes/2026/february.txt',
        'minutes/2026/january.txt',
        'minutes/readme.txt',
      ]);
      for (const entry of collection.files) expect(entry.file).toMatchObject({ maxDownloads: 5, hasPassword: true });
      // A day from the upload, and no file's own link outlives the collection's.
      const ends = Date.parse(collection.expiresAt ?? '');
      expect(Math.abs(ends - (Date.now() + 86_400_000))).toBeLessThan(60_000);
      for (const { file } of collection.files) {
        expect(file.expiresAt).not.toBeNull();
        expect(Date.parse(file.expiresAt ?? '')).toBeLessThanOrEqual(ends);
      }
    });
  }, 60_000);

  it('when a folder is chosen with "Choose a folder" and no title is typed, then the collection is named after the folder, and so is its archive', async () => {
    makeFolder('project', [
      ['src/server.ts', 20_000],
      ['README.md', 10_000],
    ]);
    await onUploadPage('maya', async (upload) => {
      const { page } = upload;
      const choosing = page.waitForEvent('filechooser');
      await page.getByRole('button', { name: 'Choose a folder' }).click();
      await (await choosing).setFiles(path.join(filesDir, 'project'));
      await expect.poll(() => page.locator('.chosen-files').textContent()).toMatch(/^2 files · /);
      const id = await uploadToCollection(page);

      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('project');
      const collection = await collectionOf('maya', id);
      expect(collection.title).toBe('project');
      expect(collection.files.map((entry) => entry.path)).toEqual(['project/README.md', 'project/src/server.ts']);
      const downloading = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download all' }).click();
      expect((await downloading).suggestedFilename()).toBe('project.zip');
    });
  }, 60_000);

  it('when several files are chosen with the file picker, then each goes as a resumable upload with its progress into one collection, and the browser lands on its page', async () => {
    const chosen = [
      { name: 'first.bin', mimeType: 'application/octet-stream', buffer: randomBytes(200_000) },
      { name: 'second.bin', mimeType: 'application/octet-stream', buffer: randomBytes(300_000) },
      { name: 'third.txt', mimeType: 'text/plain', buffer: Buffer.from('third and last\n') },
    ];
    await onUploadPage('maya', async (upload) => {
      const { page } = upload;
      await page.locator('input[type=file]').setInputFiles(chosen);
      const id = await uploadToCollection(page);

      expectEachFileShown(await seenOn(page), new Map(chosen.map((file) => [file.name, file.buffer.length])));
      expect(uploadsSent(upload.sent)).toEqual({ creations: 3, forms: 0, collections: 1 });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('3 files');
      const collection = await collectionOf('maya', id);
      expect(collection.files.map((entry) => entry.path)).toEqual(['first.bin', 'second.bin', 'third.txt']);
      for (const file of chosen) {
        const link = page.getByRole('link', { name: file.name, exact: true });
        const res = await fetch(`${app.url}${await link.getAttribute('href')}/raw`, {
          headers: { cookie: cookies.get('maya') ?? '' },
        });
        expect(Buffer.from(await res.arrayBuffer()).equals(file.buffer)).toBe(true);
      }
    });
  }, 60_000);

  it('when Pause is pressed while several files are on their way, then nothing more is sent until Resume, which finishes every file whole into one collection', async () => {
    const chosen = Array.from({ length: 6 }, (_, n) => ({
      name: `part-${n + 1}.bin`,
      mimeType: 'application/octet-stream',
      buffer: randomBytes(300_000),
    }));
    const total = chosen.reduce((sum, file) => sum + file.buffer.length, 0);
    await onUploadPage('rosa', async ({ page }) => {
      const overall = () =>
        page.locator('progress[aria-label="Upload progress"]').evaluate((bar: HTMLProgressElement) => bar.value);
      await page.locator('input[type=file]').setInputFiles(chosen);
      await page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click();
      await expect.poll(overall, { timeout: 15_000 }).toBeGreaterThan(total * 0.25);
      await page.getByRole('button', { name: 'Pause' }).click();
      expect(await page.getByRole('status').textContent()).toBe('Paused. What was sent is kept.');
      await page.waitForTimeout(300); // what was already under way when the button was pressed
      const held = await overall();
      expect(held).toBeLessThan(total);
      await page.waitForTimeout(1500);
      expect(await overall()).toBe(held);

      await Promise.all([page.waitForURL(COLLECTION_PAGE), page.getByRole('button', { name: 'Resume' }).click()]);
      const collection = await collectionOf('rosa', COLLECTION_PAGE.exec(page.url())?.[1] ?? '');
      expect(collection.files.map((entry) => entry.path).sort()).toEqual(chosen.map((file) => file.name));
      for (const file of chosen) {
        const href = await page.getByRole('link', { name: file.name, exact: true }).getAttribute('href');
        const res = await fetch(`${app.url}${href}/raw`, { headers: { cookie: cookies.get('rosa') ?? '' } });
        expect(Buffer.from(await res.arrayBuffer()).equals(file.buffer)).toBe(true);
      }
    });
  }, 60_000);

  it('when one file of several is refused (over the quota), then the page says which and why, links to the collection, and the files that arrived stay in it', async () => {
    await app.rows('update users set has_own_quota = ?, quota_bytes = ? where username = ?', [true, 100_000, 'quinn']);
    const chosen = [
      { name: 'small-one.txt', mimeType: 'text/plain', buffer: Buffer.alloc(10_000, 'a') },
      { name: 'small-two.txt', mimeType: 'text/plain', buffer: Buffer.alloc(10_000, 'b') },
      { name: 'too-big.bin', mimeType: 'application/octet-stream', buffer: randomBytes(150_000) },
    ];
    await onUploadPage(
      'quinn',
      async ({ page }) => {
        await page.locator('input[type=file]').setInputFiles(chosen);
        await page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click();
        const alert = page.getByRole('alert');
        await expect.poll(() => alert.textContent()).toMatch(/^too-big\.bin could not be uploaded: .+\./);
        const message = (await alert.textContent()) ?? '';
        expect(message).toContain('The 2 files that arrived are in the collection.');
        expect(await page.locator('.upload-file-failed .upload-file-path').textContent()).toBe('too-big.bin');
        expect(await page.locator('.upload-file-done').count()).toBe(2);
        expect(page.url()).toBe(`${app.url}/upload`);
        await page.screenshot({ path: screenshotPath('collection-upload-refused-file'), fullPage: true });

        await Promise.all([
          page.waitForURL(COLLECTION_PAGE),
          alert.getByRole('link', { name: 'Open the collection' }).click(),
        ]);
        const id = COLLECTION_PAGE.exec(page.url())?.[1] ?? '';
        // Titled by what it holds: the form's title was left empty.
        await expect.poll(async () => (await collectionOf('quinn', id)).title).toBe('2 files');
        const collection = await collectionOf('quinn', id);
        expect(collection.files.map((entry) => entry.path).sort()).toEqual(['small-one.txt', 'small-two.txt']);
      },
      /status of 413\b/,
    );
  }, 60_000);
});
