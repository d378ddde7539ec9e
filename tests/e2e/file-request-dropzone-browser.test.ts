// A file request's guest page in Chromium with JavaScript on (ADR 0048): the drop zone takes
// several files, sends each as a resumable upload (tus, to /r/<id>/uploads) one after another
// with its own progress, and says how each ended: "Sent", or the server's own words. The upload
// is slowed down in the browser (DevTools network emulation) so that a file under way is a
// moment the test can reliably see.
import { randomBytes } from 'node:crypto';
import type { Browser, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { sha256 } from '../helpers/tus';

const STEP_TIMEOUT = 120_000;
/** A few megabytes: long enough at the speed below to be seen on its way. */
const LARGE_BYTES = 3 * 1024 * 1024;
/** The browser's upload speed (bytes per second): about four seconds for the large file. */
const UPLOAD_SPEED = 768 * 1024;

let app: TestApp;
let browser: Browser;
let cookie: string;

setUpBrowserSuite({ users: ['marta'], timeout: STEP_TIMEOUT }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

async function newRequest(fields: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'The photos of the wedding, please.', ...fields }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { request: { id: string } }).request.id;
}

interface ReceivedFile {
  id: string;
  originalName: string;
  size: number;
  guestName: string | null;
  guestNote: string | null;
}

async function receivedFiles(id: string): Promise<ReceivedFile[]> {
  const res = await fetch(`${app.url}/api/v1/requests/${id}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const { files } = (await res.json()) as { files: ReceivedFile[] };
  return files.sort((a, b) => a.originalName.localeCompare(b.originalName));
}

interface Guest {
  page: Page;
  /** The requests the page sent to the request's address and below it: method and path. */
  sent: Request[];
  errors: string[];
}

/**
 * A guest's phone-sized browser with JavaScript on the request's page (answered with `status`),
 * hydrated, its upload slowed down. `body` runs with it; the context closes whatever happens,
 * then no error may have shown in the page.
 */
async function onRequestPage(
  id: string,
  body: (guest: Guest) => Promise<void>,
  { status = 200 }: { status?: number } = {},
): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const guest: Guest = { page, sent: [], errors: [] };
  page.on('pageerror', (error) => guest.errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // What the tests cause on purpose (a full request, a file too large for it, a page that asks
    // for its password) is logged by the browser as a failed request.
    if (message.type() === 'error' && !/status of (401|410|413)\b/.test(message.text()))
      guest.errors.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith(`/r/${id}`) && request.method() !== 'GET') guest.sent.push(request);
  });
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: UPLOAD_SPEED,
    });
    const opened = await page.goto(`${app.url}/r/${id}`);
    expect(opened?.status()).toBe(status);
    await waitForHydration(page, 'main form');
    await body(guest);
  } finally {
    await context.close();
  }
  expect(guest.errors).toEqual([]);
}

/** Each row of the list of files: its name, its state in words, and its progress bar's value and maximum. */
function rowsShown(page: Page) {
  return page.locator('.request-file').evaluateAll((rows) =>
    rows.map((row) => {
      const bar = row.querySelector('progress') as HTMLProgressElement;
      return {
        name: row.querySelector('.request-file-name')?.textContent ?? '',
        state: row.querySelector('.request-file-state')?.textContent ?? '',
        percent: row.querySelector('.request-file-percent')?.textContent ?? '',
        value: bar.value,
        max: bar.max,
        label: bar.getAttribute('aria-label'),
      };
    }),
  );
}

/** The tus creations and pieces the page sent, as "METHOD path" with the upload's id left out. */
function uploadRequests(guest: Guest, id: string): string[] {
  return guest.sent
    .map(
      (request) => `${request.method()} ${new URL(request.url()).pathname.replace(/\/uploads\/[^/]+$/, '/uploads/…')}`,
    )
    .map((line) => line.replace(`/r/${id}`, '/r/<id>'));
}

describe.skipIf(!hasChromium)('the drop zone of a file request in Chromium, with JavaScript', () => {
  it('when a guest drops one file and chooses another of a few megabytes, then each row shows its progress up to "Sent", the thank-you lists both, and the owner\'s request holds both with the guest\'s name and note', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'Wedding photos', maxFiles: 4, requireName: true });
    const large = randomBytes(LARGE_BYTES);
    const small = Buffer.from('Table plan, final version\n');
    await onRequestPage(id, async (guest) => {
      const { page } = guest;
      const main = page.locator('main');
      expect(await main.locator('h1').textContent()).toBe('Wedding photos');
      expect(await main.textContent()).toContain('Up to 4 more files');
      // The drop zone is the file input's label: a keyboard reaches the picker through it.
      const picker = main.getByLabel('Drop or paste files here, or choose them');
      expect(await picker.getAttribute('type')).toBe('file');

      await main.getByLabel('Your name').fill('Lea');
      await main.getByLabel('Note (optional)').fill('From the back row');
      // One file dropped on the zone, then one chosen: both join the list.
      await page.locator('.request-drop-zone').evaluate((zone, text) => {
        const data = new DataTransfer();
        data.items.add(new File([text], 'table-plan.txt', { type: 'text/plain' }));
        for (const type of ['dragenter', 'dragover', 'drop'])
          zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
      }, small.toString());
      await picker.setInputFiles([{ name: 'ceremony.jpg', mimeType: 'image/jpeg', buffer: large }]);
      expect(await rowsShown(page)).toEqual([
        {
          name: 'table-plan.txt',
          state: 'Waiting',
          percent: '0%',
          value: 0,
          max: small.length,
          label: 'Progress of table-plan.txt',
        },
        {
          name: 'ceremony.jpg',
          state: 'Waiting',
          percent: '0%',
          value: 0,
          max: LARGE_BYTES,
          label: 'Progress of ceremony.jpg',
        },
      ]);
      await snap(page, 'file-request-dropzone-chosen');
      await main.getByRole('button', { name: 'Send', exact: true }).click();

      // One after another: the small file is sent while the large one is still on its way.
      await page.waitForFunction((total) => {
        const bar = document.querySelectorAll<HTMLProgressElement>('.request-file progress')[1];
        return !!bar && bar.value > 0 && bar.value < total;
      }, LARGE_BYTES);
      const underWay = await rowsShown(page);
      expect(underWay[0]).toMatchObject({ state: 'Sent', percent: '100%', value: small.length });
      expect(underWay[1].state).toBe('Sending');
      expect(Number.parseInt(underWay[1].percent, 10)).toBeLessThan(100);
      await snap(page, 'file-request-dropzone-sending');

      await page.getByRole('status').waitFor({ timeout: 30_000 });
      expect(await page.getByRole('status').textContent()).toBe('Thank you: 2 files sent.');
      expect(await main.locator('.file-request-sent li').allTextContents()).toEqual([
        'table-plan.txt (26 bytes)',
        'ceremony.jpg (3 MiB)',
      ]);
      // No sideways scroll on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Each file went as a resumable upload: a creation, then its bytes; no plain form was posted.
      expect(uploadRequests(guest, id)).toEqual([
        'POST /r/<id>/uploads',
        'PATCH /r/<id>/uploads/…',
        'POST /r/<id>/uploads',
        'PATCH /r/<id>/uploads/…',
      ]);

      const files = await receivedFiles(id);
      expect(files.map((file) => [file.originalName, file.size, file.guestName, file.guestNote])).toEqual([
        ['ceremony.jpg', LARGE_BYTES, 'Lea', 'From the back row'],
        ['table-plan.txt', small.length, 'Lea', 'From the back row'],
      ]);
      const stored = await fetch(`${app.url}/f/${files[0].id}/raw`, { headers: { cookie } });
      expect(stored.status).toBe(200);
      expect(sha256(new Uint8Array(await stored.arrayBuffer()))).toBe(sha256(large));

      // Sending more: the form comes back with the name and note kept, and what is left.
      await main.getByRole('button', { name: 'Send more files' }).click();
      expect(await main.getByLabel('Your name').inputValue()).toBe('Lea');
      expect(await main.getByLabel('Note (optional)').inputValue()).toBe('From the back row');
      expect(await main.textContent()).toContain('Up to 2 more files');
      expect(await page.locator('.request-file').count()).toBe(0);
    });
  });

  it("when the request takes one file and the guest chooses two, then one is sent and the other's row shows the server's message that the request is full", {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'One contract', maxFiles: 1 });
    await onRequestPage(id, async ({ page }) => {
      const main = page.locator('main');
      await main.getByLabel('Drop or paste files here, or choose them').setInputFiles([
        { name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 signed\n%%EOF\n') },
        { name: 'annex.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 annex\n%%EOF\n') },
      ]);
      await main.getByRole('button', { name: 'Send', exact: true }).click();

      await page.getByRole('status').waitFor({ timeout: 30_000 });
      expect(await page.getByRole('status').textContent()).toBe('Thank you: 1 file sent.');
      expect(await main.locator('.file-request-sent li').allTextContents()).toEqual(['contract.pdf (22 bytes)']);
      expect((await rowsShown(page)).map(({ name, state }) => [name, state])).toEqual([
        ['contract.pdf', 'Sent'],
        ['annex.pdf', 'This file request is full: it has received all the files it asked for.'],
      ]);
      // A full request takes no more: the page offers none.
      expect(await main.getByRole('button', { name: 'Send more files' }).count()).toBe(0);
      await snap(page, 'file-request-dropzone-refused');
    });
    expect((await receivedFiles(id)).map((file) => file.originalName)).toEqual(['contract.pdf']);
  });

  it('when the guest’s only file is larger than the room left in the request, then the page says no file was sent and why, and offers to try again (not to send more), which brings the file back to remove', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'Tiny notes', maxBytes: 10 });
    await onRequestPage(id, async ({ page }) => {
      const main = page.locator('main');
      await main
        .getByLabel('Drop or paste files here, or choose them')
        .setInputFiles([
          { name: 'essay.txt', mimeType: 'text/plain', buffer: Buffer.from('far more than ten bytes\n') },
        ]);
      await main.getByRole('button', { name: 'Send', exact: true }).click();

      await page.getByRole('alert').waitFor({ timeout: 30_000 });
      expect(await page.getByRole('alert').textContent()).toBe(
        'No file was sent. This file is larger than the room left in this file request.',
      );
      expect(await main.getByRole('button', { name: 'Send more files' }).count()).toBe(0);
      await snap(page, 'file-request-dropzone-too-large');
      await main.getByRole('button', { name: 'Try again' }).click();
      // The form again, the file in its list to send again or to remove.
      expect((await rowsShown(page)).map(({ name, state }) => [name, state])).toEqual([['essay.txt', 'Waiting']]);
      await main.getByRole('button', { name: 'Remove essay.txt' }).click();
      expect(await page.locator('.request-file').count()).toBe(0);
    });
    expect(await receivedFiles(id)).toEqual([]);
  });

  it('when the request is closed while the guest has its page open, then sending says no file was sent because it is closed, and offers nothing more to try', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'Closing soon' });
    await onRequestPage(id, async ({ page }) => {
      const main = page.locator('main');
      const closed = await fetch(`${app.url}/api/v1/requests/${id}`, {
        method: 'PATCH',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ closed: true }),
      });
      expect(closed.status).toBe(200);
      await main
        .getByLabel('Drop or paste files here, or choose them')
        .setInputFiles([{ name: 'late.txt', mimeType: 'text/plain', buffer: Buffer.from('late\n') }]);
      await main.getByRole('button', { name: 'Send', exact: true }).click();

      await page.getByRole('alert').waitFor({ timeout: 30_000 });
      expect(await page.getByRole('alert').textContent()).toBe(
        'No file was sent. This file request is closed: it takes no more files.',
      );
      expect(await main.getByRole('button', { name: 'Send more files' }).count()).toBe(0);
      expect(await main.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    });
    expect(await receivedFiles(id)).toEqual([]);
  });

  it('when the guest leaves the page while a file is on its way, then its upload is deleted and the request takes a file again', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'One video', maxFiles: 1 });
    /** What the request's page says it still takes, as a guest without JavaScript reads it. */
    const takes = async () => {
      const res = await fetch(`${app.url}/r/${id}`);
      expect(res.status).toBe(200);
      return /Up to \d+ more files?/.exec(await res.text())?.[0];
    };
    await onRequestPage(id, async ({ page }) => {
      const main = page.locator('main');
      await main
        .getByLabel('Drop or paste files here, or choose them')
        .setInputFiles([{ name: 'speech.mp4', mimeType: 'video/mp4', buffer: randomBytes(LARGE_BYTES) }]);
      await main.getByRole('button', { name: 'Send', exact: true }).click();
      await page.waitForFunction(
        () => (document.querySelector<HTMLProgressElement>('.request-file progress')?.value ?? 0) > 0,
      );
      // The upload under way holds the request's one place.
      expect(await takes()).toBe('Up to 0 more files');

      await page.goto('about:blank');
      await expect.poll(takes, { timeout: 10_000 }).toBe('Up to 1 more file');
    });
    expect(await receivedFiles(id)).toEqual([]);
  });

  it('when the request has a password and the guest typed it on the page, then the files go without it and arrive', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'Locked box', password: 'blue harbour' });
    await onRequestPage(
      id,
      async (guest) => {
        const { page } = guest;
        await page.getByLabel('Password').fill('blue harbour');
        await page.getByRole('button', { name: 'Open' }).click();
        await page.locator('h1', { hasText: 'Locked box' }).waitFor();
        await waitForHydration(page, 'main form');
        const main = page.locator('main');
        await main
          .getByLabel('Drop or paste files here, or choose them')
          .setInputFiles([{ name: 'keys.txt', mimeType: 'text/plain', buffer: Buffer.from('under the mat\n') }]);
        await main.getByRole('button', { name: 'Send', exact: true }).click();
        await page.getByRole('status').waitFor({ timeout: 30_000 });
        expect(await page.getByRole('status').textContent()).toBe('Thank you: 1 file sent.');
        // The request's grant cookie opened the upload: its password never left the unlock form.
        const creation = guest.sent.find((request) => request.url().endsWith('/uploads'));
        expect(creation?.headers()['upload-metadata']).not.toMatch(/password/);
      },
      { status: 401 },
    );
    expect((await receivedFiles(id)).map((file) => file.originalName)).toEqual(['keys.txt']);
  });

  it('when the request asks for a name and the guest leaves it empty, then the browser asks for it and nothing is sent', {
    timeout: STEP_TIMEOUT,
  }, async () => {
    const id = await newRequest({ title: 'Signed forms', requireName: true });
    await onRequestPage(id, async (guest) => {
      const { page } = guest;
      const main = page.locator('main');
      await main
        .getByLabel('Drop or paste files here, or choose them')
        .setInputFiles([
          { name: 'form.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 form\n%%EOF\n') },
        ]);
      await main.getByRole('button', { name: 'Send', exact: true }).click();
      expect(
        await main.getByLabel('Your name').evaluate((input: HTMLInputElement) => input.validity.valueMissing),
      ).toBe(true);
      // The browser's question is answered before anything goes: the page stays as it was.
      await page.waitForTimeout(500);
      expect(guest.sent).toEqual([]);
      expect((await rowsShown(page)).map(({ state }) => state)).toEqual(['Waiting']);
    });
    expect(await receivedFiles(id)).toEqual([]);
  });
});
