// Resumable uploads from the upload page in a real browser (Debian's Chromium through
// playwright-core), JavaScript on: the page sends the file over tus to /api/v1/uploads. A
// connection lost mid-upload, a pause, a reload and a link password are each lived through
// as a user would; the test then downloads what the server stored and compares its SHA-256
// with the file chosen. The upload is slowed down in the browser (DevTools network
// emulation) so that "mid-upload" is a moment the test can reliably reach.
//
// The browser reaches the app through a small TCP relay, which is the app's BASE_URL. A lost
// connection is the relay resetting the browser's connections and refusing new ones, with the
// browser set offline: DevTools' offline emulation alone only stops new requests, and lets a
// request already under way run to its end (seen in Chromium 156), so it cannot cut an upload
// in the middle the way a dropped network does.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page, Request } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';
import { sha256, tusClient, type TusClient } from '../helpers/tus';

/** Big enough to be caught mid-way, small enough to finish in seconds at the speed below. */
const FILE_BYTES = 3 * 1024 * 1024;
/** The browser's upload speed (bytes per second): about four seconds for the whole file. */
const UPLOAD_SPEED = 768 * 1024;
const SHARE_PAGE = /\/f\/[A-Za-z0-9_-]+$/;

/** The network between the browser and the app: it can drop every connection and come back. */
interface Link {
  url: string;
  /** Resets the connections open through it and stops answering new ones (they are refused). */
  drop(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 to `target()`'s port (known only once the app, whose BASE_URL is this
 * relay, listens). While dropped it does not even listen: a connection the browser opens then
 * is refused at once, so no byte goes anywhere (one accepted and then reset would first swallow
 * megabytes into the socket's buffers, and the browser would count them as sent).
 */
async function startLink(target: () => number): Promise<Link> {
  const sockets = new Set<net.Socket>();
  const relay = (client: net.Socket) => {
    const upstream = net.connect(target(), '127.0.0.1');
    const pair = [client, upstream];
    for (const socket of pair) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        for (const other of pair) other.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const listen = async (port: number) => {
    const server = net.createServer(relay);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    return server;
  };
  let server: net.Server | null = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const stop = async () => {
    const closing = server;
    server = null;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()).unref());
  };
  return {
    url: `http://127.0.0.1:${port}`,
    async drop() {
      const stopped = stop(); // the listening socket closes at once; this resolves once the connections are gone
      for (const socket of sockets) socket.resetAndDestroy();
      await stopped;
    },
    async restore() {
      server ??= await listen(port);
    },
    async close() {
      const stopped = stop();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}

let app: TestApp;
let link: Link;
/** Where the browser finds the app: through the link. */
let site: string;
let browser: Browser;
let cookie: string;
let tus: TusClient;
let filesDir: string;

setUpBrowserSuite(
  {
    start: async () => {
      link = await startLink(() => Number(new URL(app.url).port));
      site = link.url;
      return startApp({ BASE_URL: site });
    },
    users: ['rosa'],
  },
  (suite) => {
    ({ app, browser } = suite);
    [cookie] = suite.cookies;
    tus = tusClient(app.url, cookie);
    filesDir = tempDir('resumable-browser-');
  },
);

afterAll(async () => {
  await link?.close();
  if (filesDir) fs.rmSync(filesDir, { recursive: true, force: true });
});

interface ChosenFile {
  path: string;
  name: string;
  sha256: string;
}

/** A file of random bytes on disk: choosing it again gives the browser the very same file (name, size, date). */
function randomFile(name: string): ChosenFile {
  const bytes = randomBytes(FILE_BYTES);
  const file = path.join(filesDir, name);
  fs.writeFileSync(file, bytes);
  return { path: file, name, sha256: sha256(bytes) };
}

interface Session {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  /** Every PATCH the page sent, in order, with the offset it started from. */
  patches: { offset: number; request: Request }[];
  /** The tus creations (POST /api/v1/uploads) the page sent. */
  creations: Request[];
  /** Uncaught errors and console errors beyond the network failures these tests cause. */
  errors: string[];
}

/**
 * A logged-in browser on /upload, hydrated, its requests recorded and its network slowed
 * down. `body` runs with it; the context closes whatever happens, then no error may have
 * shown in the page.
 */
async function onUploadPage(body: (session: Session) => Promise<void>): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.slice(cookie.indexOf('=') + 1), url: site, httpOnly: true, sameSite: 'Lax' },
  ]);
  const page = await context.newPage();
  const session: Session = {
    context,
    page,
    cdp: await context.newCDPSession(page),
    patches: [],
    creations: [],
    errors: [],
  };
  page.on('pageerror', (error) => session.errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // The failures these tests cause on purpose: the network gone, an upload still claimed.
    if (/net::ERR_|status of (409|423)\b/.test(message.text())) return;
    session.errors.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    if (!new URL(request.url()).pathname.startsWith('/api/v1/uploads')) return;
    if (request.method() === 'PATCH')
      session.patches.push({ offset: Number(request.headers()['upload-offset']), request });
    if (request.method() === 'POST') session.creations.push(request);
  });
  await link.restore(); // whatever a failed test before left
  try {
    await session.cdp.send('Network.enable');
    await network(session, { offline: false });
    const res = await page.goto(`${site}/upload`);
    expect(res?.status()).toBe(200);
    await waitForHydration(page, 'main form');
    await body(session);
  } finally {
    await context.close();
  }
  expect(session.errors).toEqual([]);
}

/** The browser's network: slowed to UPLOAD_SPEED, or (offline) gone altogether. */
async function network({ cdp }: Session, { offline, throttled = true }: { offline: boolean; throttled?: boolean }) {
  await cdp.send('Network.emulateNetworkConditions', {
    offline,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: throttled ? UPLOAD_SPEED : -1,
  });
}

async function chooseAndUpload(page: Page, file: ChosenFile): Promise<void> {
  await page.locator('input[type=file]').setInputFiles(file.path);
  await page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click();
}

/** The bytes the progress bar says were sent. */
function progressShown(page: Page): Promise<number> {
  return page.locator('progress[aria-label="Upload progress"]').evaluate((el: HTMLProgressElement) => el.value);
}

/** Waits until the progress bar shows at least `fraction` of the file sent. */
async function waitForProgress(page: Page, fraction: number): Promise<void> {
  await page.waitForFunction((min) => {
    const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
    return !!bar && bar.max > 1 && bar.value >= min * bar.max;
  }, fraction);
}

/** Where the page's upload lives on the server (the Location of its creation). */
async function uploadLocation({ creations }: Session): Promise<string> {
  expect(creations).toHaveLength(1);
  const response = await creations[0].response();
  expect(response?.status()).toBe(201);
  return new URL(response!.headers().location, site).href;
}

/** The offset the server answers to HEAD, as any tus client would ask it (straight, not through the link). */
async function serverOffset(location: string): Promise<number> {
  const res = await tus.head(new URL(new URL(location).pathname, app.url).href);
  expect(res.status).toBe(200);
  return Number(res.headers.get('upload-offset'));
}

/**
 * The server's offset once it has taken in the request the browser broke off: above 0, and
 * the same on two reads a moment apart.
 */
async function settledOffset(location: string): Promise<number> {
  let last = -1;
  await expect
    .poll(
      async () => {
        const previous = last;
        last = await serverOffset(location);
        return last > 0 && last === previous;
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe(true);
  return last;
}

/** The PATCHes from `from` on that the server accepted (2xx), with their offsets. */
async function acceptedPatches(session: Session, from: number): Promise<number[]> {
  const accepted: number[] = [];
  for (const { offset, request } of session.patches.slice(from)) {
    const status = (await request.response())?.status() ?? 0;
    if (status >= 200 && status < 300) accepted.push(offset);
  }
  return accepted;
}

/** The id in a /f/<id> address. */
function fileIdFrom(url: string): string {
  const id = /\/f\/([A-Za-z0-9_-]+)$/.exec(new URL(url).pathname)?.[1];
  if (!id) throw new Error(`not a share page: ${url}`);
  return id;
}

/** The SHA-256 of what the file's raw link serves, downloaded over HTTP. */
async function storedSha256(fileId: string): Promise<string> {
  const res = await fetch(`${app.url}/f/${fileId}/raw`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return sha256(new Uint8Array(await res.arrayBuffer()));
}

/** Lands on the file's page and checks the stored bytes are the chosen file's. */
async function expectStoredWhole(page: Page, file: ChosenFile): Promise<string> {
  await page.waitForURL(SHARE_PAGE, { timeout: 20_000 });
  expect(await page.locator('h1.file-name').textContent()).toBe(file.name);
  const id = fileIdFrom(page.url());
  expect(await app.rows('select size from files where id = ?', [id])).toEqual([{ size: FILE_BYTES }]);
  expect(await storedSha256(id)).toBe(file.sha256);
  return id;
}

/** A stored value as JSON when it is JSON, else the text itself. */
function parsed(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Every key of a JSON value, however deep, lower-cased. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key.toLowerCase(), ...keysOf(inner)]);
}

/** Every localStorage entry the page keeps for unfinished tus uploads (`tus::…`). */
function tusEntries(page: Page): Promise<[string, string][]> {
  return page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.startsWith('tus::')));
}

describe.skipIf(!hasChromium)(`resumable uploads in Chromium, with JavaScript${SKIP_NOTE}`, () => {
  it('when the connection drops mid-upload and comes back a few seconds later, then the page says so, the upload carries on from where it stopped by itself, and the stored file is the one chosen', async () => {
    const file = randomFile('dropped-connection.bin');
    await onUploadPage(async (session) => {
      const { page } = session;
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.25);
      expect(session.patches.map((patch) => patch.offset)).toEqual([0]);

      // The network goes: the upload under way breaks off. The page says so and keeps
      // trying: at once, then after 1 s, then 2 s.
      const patchesBeforeDrop = session.patches.length;
      await link.drop();
      await network(session, { offline: true });
      await page.getByText('Connection lost. Trying again in 2 s…').waitFor();
      expect(await page.locator('main').getByRole('status').textContent()).toBe(
        'Connection lost. Trying again in 2 s…',
      );
      expect(page.url()).toBe(`${site}/upload`);
      // The server keeps what reached it before the drop: part of the file.
      const kept = await settledOffset(await uploadLocation(session));
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(FILE_BYTES);

      // It comes back: the next try asks the server's offset and sends the rest; the notice goes.
      await link.restore();
      await network(session, { offline: false });
      await page.waitForFunction((from) => {
        const bar = document.querySelector<HTMLProgressElement>('progress[aria-label="Upload progress"]');
        return !document.querySelector('.upload-notice') && !!bar && bar.value > from;
      }, kept);
      await expectStoredWhole(page, file);

      // Nothing was sent again from the first byte: the same upload was carried on exactly
      // where the bytes that reached the server before the drop ended.
      expect(await acceptedPatches(session, patchesBeforeDrop)).toEqual([kept]);
      expect(session.creations).toHaveLength(1);
    });
  });

  it('when the user presses Pause mid-upload, then the progress and the server’s offset stay put while paused, and Resume finishes the upload from there with the file whole', async () => {
    const file = randomFile('paused.bin');
    await onUploadPage(async (session) => {
      const { page } = session;
      const main = page.locator('main');
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.2);
      await main.getByRole('button', { name: 'Pause', exact: true }).click();

      await main.getByRole('button', { name: 'Resume', exact: true }).waitFor();
      expect(await main.getByRole('status').textContent()).toBe('Paused. What was sent is kept.');
      expect(await main.getByRole('button', { name: 'Pause', exact: true }).count()).toBe(0);
      expect(await main.getByRole('button', { name: 'Paused', exact: true }).isDisabled()).toBe(true);

      // What reached the server is kept, and nothing more arrives while paused.
      const location = await uploadLocation(session);
      const kept = await settledOffset(location);
      const shown = await progressShown(page);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(FILE_BYTES);
      const patchesWhilePaused = session.patches.length;
      for (let look = 0; look < 5; look++) {
        await new Promise((resolve) => setTimeout(resolve, 300)); // watching time pass is the point here
        expect(await serverOffset(location)).toBe(kept);
        expect(await progressShown(page)).toBe(shown);
      }
      expect(session.patches.length).toBe(patchesWhilePaused);

      await main.getByRole('button', { name: 'Resume', exact: true }).click();
      await expectStoredWhole(page, file);
      // Resumed at the offset the server kept: the bytes before it were not sent again.
      expect(await acceptedPatches(session, patchesWhilePaused)).toEqual([kept]);
      expect(session.creations).toHaveLength(1);
    });
  });

  it('when the page is reloaded mid-upload, then it names the unfinished upload, and choosing the same file again carries on from the server’s offset to a whole file', async () => {
    const file = randomFile('reloaded-holiday.bin');
    await onUploadPage(async (session) => {
      const { page } = session;
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.25);
      const location = await uploadLocation(session);

      await page.reload();
      await waitForHydration(page, 'main form');
      await network(session, { offline: false }); // still slow after the reload, whatever DevTools keeps

      const unfinished = page.locator('.unfinished-uploads');
      await unfinished.waitFor();
      expect(await unfinished.textContent()).toBe(
        `Unfinished upload: ${file.name}. Choose the same file again to carry on where it stopped.`,
      );
      const kept = await settledOffset(location);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(FILE_BYTES);

      const patchesAfterReload = session.patches.length;
      await chooseAndUpload(page, file);
      await page.getByText('Carrying on with the upload of this file begun earlier.').waitFor();
      expect(await unfinished.count()).toBe(0);
      await expectStoredWhole(page, file);
      // The same upload on the server, carried on where it stopped: no new one, no byte sent twice.
      expect(session.creations).toHaveLength(1);
      expect(await acceptedPatches(session, patchesAfterReload)).toEqual([kept]);
      // Finished, it is forgotten: the next visit names no unfinished upload.
      expect(await tusEntries(page)).toEqual([]);
    });
  });

  it('when the page is reloaded mid-upload and the same file is chosen again with a password and a download limit, then a new upload carries them, the earlier one is let go, and the link asks for the password', async () => {
    const file = randomFile('reloaded-with-options.bin');
    await onUploadPage(async (session) => {
      const { page } = session;
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.2);
      const earlier = await uploadLocation(session);

      await page.reload();
      await waitForHydration(page, 'main form');
      await network(session, { offline: false, throttled: false });
      await page.locator('.unfinished-uploads').waitFor();

      await page.getByLabel('Maximum downloads').fill('1');
      await page.getByLabel('Password', { exact: true }).fill('lantern-quiet-93');
      await chooseAndUpload(page, file);
      await page.waitForURL(SHARE_PAGE, { timeout: 30_000 });

      // Not carried on: the earlier upload was begun without these options.
      expect(session.creations).toHaveLength(2);
      await expect
        .poll(async () => (await tus.head(new URL(new URL(earlier).pathname, app.url).href)).status, {
          timeout: 10_000,
        })
        .toBe(404);
      const id = fileIdFrom(page.url());
      const [row] = await app.rows('select password_hash, max_downloads from files where id = ?', [id]);
      expect(String(row.password_hash)).toMatch(/^\$2/);
      expect(Number(row.max_downloads)).toBe(1);
      expect(await storedSha256(id)).toBe(file.sha256);
      expect((await fetch(`${app.url}/f/${id}/raw`)).status).toBe(401);
      expect(await tusEntries(page)).toEqual([]);
    });
  });

  it('when another person logs in on the same browser after an upload was left unfinished, then their upload page names none of it, and the first person still sees theirs', async () => {
    const file = randomFile('left-behind-by-rosa.bin');
    await app.createUser('tomas').catch(() => undefined);
    const tomas = await app.login('tomas');
    await onUploadPage(async (session) => {
      const { page, context } = session;
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.1);
      await expect.poll(async () => (await tusEntries(page)).length, { timeout: 10_000 }).toBe(1);

      const asUser = async (sessionCookie: string) => {
        await context.addCookies([
          {
            name: 'token',
            value: sessionCookie.slice(sessionCookie.indexOf('=') + 1),
            url: site,
            httpOnly: true,
            sameSite: 'Lax',
          },
        ]);
        await page.goto(`${site}/upload`);
        await waitForHydration(page, 'main form');
      };
      await asUser(tomas);
      // Hydrated, with the unfinished uploads looked up: the page would have said so by now.
      await page.waitForTimeout(500);
      expect(await page.locator('.unfinished-uploads').count()).toBe(0);
      expect(await page.locator('main').textContent()).not.toContain(file.name);

      await asUser(cookie);
      await page.locator('.unfinished-uploads').waitFor();
      expect(await page.locator('.unfinished-uploads').textContent()).toContain(file.name);
    });
  });

  it('when the user uploads an empty file, then the page lands on the file’s own page, which shows it with a size of 0 bytes, and its link serves nothing', async () => {
    const empty: ChosenFile = {
      path: path.join(filesDir, 'empty-notes.txt'),
      name: 'empty-notes.txt',
      sha256: sha256(new Uint8Array(0)),
    };
    fs.writeFileSync(empty.path, '');
    await onUploadPage(async (session) => {
      const { page } = session;
      await chooseAndUpload(page, empty);
      // tus-js-client takes the creation's answer as the end of a 0-byte upload: that answer is the file.
      await page.waitForURL(SHARE_PAGE, { timeout: 20_000 });
      expect(await page.locator('h1.file-name').textContent()).toBe(empty.name);
      expect(await page.locator('.facts div', { hasText: 'Size' }).locator('dd').textContent()).toBe('0 bytes');
      const id = fileIdFrom(page.url());
      expect(await app.rows('select size from files where id = ?', [id])).toEqual([{ size: 0 }]);
      expect(await storedSha256(id)).toBe(empty.sha256);
      expect(session.creations).toHaveLength(1);
      expect(session.patches).toEqual([]);
      expect(await tusEntries(page)).toEqual([]);
    });
  });

  it('when an upload with a link password is under way, then nothing the browser keeps for resuming it holds the password', async () => {
    const file = randomFile('quarterly-report.bin');
    const password = 'tangerine-hush-4217';
    await onUploadPage(async (session) => {
      const { page } = session;
      await page.getByLabel('Password', { exact: true }).fill(password);
      await chooseAndUpload(page, file);
      await waitForProgress(page, 0.1);
      await expect.poll(async () => (await tusEntries(page)).length, { timeout: 10_000 }).toBe(1);

      const [[, stored]] = await tusEntries(page);
      // Only the file name is kept to say what the upload was, beside where it lives.
      expect(JSON.parse(stored)).toMatchObject({ metadata: { filename: file.name } });
      // Where it lives, as the server said it: relative to the page's own address.
      expect(new URL(JSON.parse(stored).uploadUrl, site).href).toBe(await uploadLocation(session));
      // Whether there was a password, never which (a new choice of options is then begun anew).
      expect(JSON.parse(stored).metadata).toMatchObject({ filename: file.name, locked: 'yes' });
      expect(Object.values(JSON.parse(stored).metadata as Record<string, string>)).not.toContain(password);
      const everything = await page.evaluate(() => [
        ...Object.entries(localStorage),
        ...Object.entries(sessionStorage),
      ]);
      expect(everything.length).toBeGreaterThan(0);
      for (const [key, value] of everything) {
        expect(`${key} ${value}`).not.toContain(password);
        expect(keysOf(parsed(value)).filter((name) => name.includes('password'))).toEqual([]);
      }
      // All that was read while the upload was still under way.
      expect(page.url()).toBe(`${site}/upload`);
      expect(await progressShown(page)).toBeLessThan(FILE_BYTES);

      // The password went to the server all the same: the finished link asks for it.
      await network(session, { offline: false, throttled: false });
      await page.waitForURL(SHARE_PAGE, { timeout: 20_000 });
      const id = fileIdFrom(page.url());
      const [row] = await app.rows('select password_hash from files where id = ?', [id]);
      expect(String(row.password_hash)).toMatch(/^\$2/);
      expect((await fetch(`${app.url}/f/${id}/raw`)).status).toBe(401);
      expect(await tusEntries(page)).toEqual([]);
    });
  });
});
