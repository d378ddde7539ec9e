// Every page of the site, and the flows through them, in Debian's Chromium: with JavaScript on and
// off, 1280 px wide and on a 390 px phone, in the light and the dark colour scheme. On each, the
// page does not scroll sideways, no text is cut off at the side of a box that scrolls or clips it
// (a table too wide for a phone), and no piece of text overlaps another (tests/helpers/
// pages-browser.ts says how that is measured). The site is browsed at http://localhost:<port> while BASE_URL
// names http://127.0.0.1:<port>, as after `PORT=… npm start` opened by another name. Each view
// is saved as a screenshot, in a folder under the system's temporary directory that the run
// prints, for a person to look at; the pixels themselves never fail a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { sampleOf } from '../helpers/file-samples';
import { sidewaysScroll, textLayout, waitForHydration } from '../helpers/pages-browser';
import { apiUpload, makePng, postForm, turnOnTwoFactorOnPages } from '../helpers/pages-fixtures';
import { tusClient } from '../helpers/tus';
import { startReceiver, type Receiver } from '../webhooks/receiver';

const SCRIPTS = [true, false] as const;
const WIDTHS = [1280, 390] as const;
/** Each page is looked at in both, switched on the loaded page (the same as the context's `colorScheme`). */
const THEMES = ['light', 'dark'] as const;
const STEP_TIMEOUT = 60_000;
const LOCK = 'pony pony pony';
/** No expired link is swept away while the run looks at its 410 page. */
const NO_SWEEP = { expirySweepEveryMs: 3_600_000 };

/** Who a page is opened as: a visitor has no session. */
type Who = 'visitor' | 'olive' | 'paige' | 'emil';

interface PageCase {
  name: string;
  who: Who;
  /** The address to open (known once the fixtures are made). */
  path: () => string;
  /** The status the address answers with, when the page is the one it answers. */
  status?: number;
  /** What to do on the page to reach the state shown. */
  reach?: (page: Page, js: boolean) => Promise<void>;
  /** Done over HTTP before the page opens. */
  before?: () => Promise<void>;
  /** Text the page shows once it is the page meant (a check that the fixture is what it should be). */
  shows: string;
  /** A page too long for a whole screenshot: its first and last screens are shot. */
  long?: boolean;
}

let app: TestApp;
let browser: Browser;
/** The address the browser uses: BASE_URL is 127.0.0.1's, the browser goes to localhost. */
let site: string;
const receivers: Receiver[] = [];
const cookies: Record<Exclude<Who, 'visitor'>, string> = { olive: '', paige: '', emil: '' };
let floCookie = '';
const ids = {
  image: '',
  video: '',
  source: '',
  markdown: '',
  pdf: '',
  other: '',
  limited: '',
  locked: '',
  expired: '',
  usedUp: '',
  collection: '',
  lockedCollection: '',
  openRequest: '',
  closedRequest: '',
  lockedRequest: '',
  receiptsRequest: '',
};
let olderFilesPath = '';
/** Where the screenshots go: a new folder under the system's temporary directory each run. */
let SHOTS = '';

/** Fills the password form of a protected page and opens it. */
async function unlock(page: Page, js: boolean, password = LOCK) {
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Open' }).click();
  if (password === LOCK) {
    await page.locator('h1.file-name').waitFor();
    if (js) await waitForHydration(page);
  } else await page.getByRole('alert').waitFor();
}

const PAGES: PageCase[] = [
  { name: 'login', who: 'visitor', path: () => '/login', shows: 'Accounts are created by the administrator' },
  {
    name: 'login-two-factor-step',
    who: 'visitor',
    path: () => '/login',
    reach: async (page) => {
      await page.getByLabel('Username').fill('olive');
      await page.getByLabel('Password').fill(DEFAULT_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByLabel('Two-factor code').waitFor();
    },
    shows: 'Enter the code your authenticator app shows for olive',
  },
  { name: 'home-visitor', who: 'visitor', path: () => '/', shows: 'Share files with a link' },
  { name: 'home-signed-in', who: 'olive', path: () => '/', shows: 'Upload a file' },
  { name: 'files-table', who: 'olive', path: () => '/files', shows: 'Unfinished uploads' },
  { name: 'files-gallery', who: 'olive', path: () => '/files?view=gallery', shows: 'beach.png' },
  { name: 'files-no-match', who: 'olive', path: () => '/files?q=nothing+is+called+this', shows: 'No files match' },
  {
    name: 'files-first-of-pages',
    who: 'paige',
    path: () => '/files',
    shows: 'Showing your 100 newest files of 102',
    long: true,
  },
  { name: 'files-older-page', who: 'paige', path: () => olderFilesPath, shows: 'Showing 2 older files of your 102' },
  { name: 'files-empty', who: 'emil', path: () => '/files', shows: 'No files yet' },
  { name: 'upload', who: 'olive', path: () => '/upload', shows: 'Upload a file' },
  {
    name: 'requests',
    who: 'olive',
    path: () => '/requests',
    // A file arrives before each visit, so that the request shows its "new" badges (the visit marks them seen).
    before: () => sendToRequest(ids.receiptsRequest, 'Marta', 'The receipt of today', 'receipt.pdf'),
    shows: 'Wedding photos',
  },
  {
    name: 'request-guest-open',
    who: 'visitor',
    path: () => `/r/${ids.openRequest}`,
    shows: 'Please send the receipts of March',
  },
  { name: 'request-guest-closed', who: 'visitor', path: () => `/r/${ids.closedRequest}`, status: 410, shows: 'closed' },
  {
    name: 'request-guest-locked',
    who: 'visitor',
    path: () => `/r/${ids.lockedRequest}`,
    status: 401,
    shows: 'Password-protected file request',
  },
  { name: 'settings', who: 'olive', path: () => '/settings', shows: 'HTTP 500' },
  {
    name: 'settings-two-factor-set-up',
    who: 'emil',
    path: () => '/settings',
    reach: async (page, js) => {
      await page.getByRole('button', { name: 'Set up two-factor codes' }).click();
      await page.getByRole('img', { name: 'QR code of the secret' }).waitFor();
      if (js) await waitForHydration(page);
    },
    shows: 'Scan this QR code',
  },
  // Not a page of its own: a GET leads to the settings page, where a ShareX config is made.
  {
    name: 'settings-sharex',
    who: 'olive',
    path: () => '/settings/sharex',
    reach: async (page) => {
      expect(new URL(page.url()).pathname).toBe('/settings');
    },
    shows: 'Two-factor codes',
  },
  { name: 'share-image-owner', who: 'olive', path: () => `/f/${ids.image}`, shows: 'Save settings' },
  { name: 'share-image', who: 'visitor', path: () => `/f/${ids.image}`, shows: 'beach.png' },
  { name: 'share-video', who: 'visitor', path: () => `/f/${ids.video}`, shows: 'clip.mp4' },
  { name: 'share-source', who: 'visitor', path: () => `/f/${ids.source}`, shows: 'playlist.ts' },
  { name: 'share-markdown', who: 'visitor', path: () => `/f/${ids.markdown}`, shows: 'README.md' },
  { name: 'share-pdf', who: 'visitor', path: () => `/f/${ids.pdf}`, shows: 'Open the PDF in a new tab' },
  { name: 'share-other', who: 'visitor', path: () => `/f/${ids.other}`, shows: 'No preview for this type of file' },
  { name: 'share-limited', who: 'visitor', path: () => `/f/${ids.limited}`, shows: 'No preview: this link allows' },
  {
    name: 'share-locked',
    who: 'visitor',
    path: () => `/f/${ids.locked}`,
    status: 401,
    shows: 'Password-protected file',
  },
  {
    name: 'share-locked-wrong-password',
    who: 'visitor',
    path: () => `/f/${ids.locked}`,
    reach: (page, js) => unlock(page, js, 'not the password'),
    shows: 'Password-protected file',
  },
  {
    name: 'share-unlocked',
    who: 'visitor',
    path: () => `/f/${ids.locked}`,
    reach: unlock,
    shows: 'plans.txt',
  },
  {
    name: 'share-expired',
    who: 'visitor',
    path: () => `/f/${ids.expired}`,
    status: 410,
    shows: 'This link has expired.',
  },
  {
    name: 'share-used-up',
    who: 'visitor',
    path: () => `/f/${ids.usedUp}`,
    status: 410,
    shows: 'This link has reached its download limit.',
  },
  { name: 'collection-owner', who: 'olive', path: () => `/c/${ids.collection}`, shows: 'harbour.png' },
  { name: 'collection', who: 'visitor', path: () => `/c/${ids.collection}`, shows: 'Download all' },
  {
    name: 'collection-locked',
    who: 'visitor',
    path: () => `/c/${ids.lockedCollection}`,
    status: 401,
    shows: 'Password-protected collection',
  },
  {
    name: 'collection-unlocked',
    who: 'visitor',
    path: () => `/c/${ids.lockedCollection}`,
    reach: unlock,
    shows: 'Private album',
  },
  { name: 'file-delete', who: 'olive', path: () => `/files/${ids.other}/delete`, shows: 'Delete a file' },
  {
    name: 'collection-delete',
    who: 'olive',
    path: () => `/collections/${ids.collection}/delete`,
    shows: 'Also delete its 5 files',
  },
  // Only a POST is taken there (the Cancel of an unfinished upload on /files).
  {
    name: 'upload-cancel-opened',
    who: 'olive',
    path: () => '/uploads/no-such-upload/cancel',
    status: 404,
    shows: '404',
  },
  {
    name: 'upload-cancel-gone',
    who: 'olive',
    path: () => '/files',
    // The Cancel of an upload that finished or was cancelled meanwhile (in another tab, say).
    reach: async (page) => {
      await page.evaluate(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/uploads/no-such-upload/cancel';
        document.body.append(form);
        form.submit();
      });
      await page.getByText('This upload is not there any more').waitFor();
    },
    shows: 'This upload is not there any more',
  },
  { name: 'not-found', who: 'visitor', path: () => '/no-such-page', status: 404, shows: 'Page not found.' },
  { name: 'not-found-signed-in', who: 'olive', path: () => '/no-such-page', status: 404, shows: 'Go to my files' },
];

/** A guest's files into a request, as the page's form sends them without JavaScript. */
async function sendToRequest(id: string, name: string, note: string, filename: string) {
  const form = new FormData();
  form.set('name', name);
  form.set('note', note);
  form.set(
    'file',
    new Blob([new Uint8Array(sampleOf('application/pdf', 3000))], { type: 'application/pdf' }),
    filename,
  );
  const res = await fetch(`${app.url}/r/${id}`, {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: form,
  });
  if (res.status !== 201) throw new Error(`sending to the request: ${res.status} ${await res.text()}`);
}

/** Uploads with share settings (password, expiry, download limit) and returns the file's id. */
async function uploadWith(cookie: string, content: string | Uint8Array, name: string, fields: Record<string, string>) {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(content, name, 'application/octet-stream', 'file', fields),
  });
  if (res.status !== 201) throw new Error(`upload of ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { file: { id: string } }).file.id;
}

/** An HTTP JSON call as the user of `cookie`; the answer's JSON. */
async function api(cookie: string, method: string, address: string, body?: unknown, status = [200, 201]) {
  const res = await fetch(`${app.url}${address}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!status.includes(res.status)) throw new Error(`${method} ${address}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A one-page PDF that says a line, so that its preview shows something. */
function onePagePdf(): Buffer {
  const text = 'BT /F1 24 Tf 72 720 Td (Quarterly report) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(pdf.length);
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const SOURCE = `// Plays the list in order, then from the top again.
import { type Track, loadTracks } from './tracks';

export async function playlist(name: string, shuffle = false): Promise<Track[]> {
  const tracks = await loadTracks(name);
  if (shuffle) return tracks.sort(() => Math.random() - 0.5); // a line long enough to go past the width of a phone's screen
  return tracks;
}
`;

const MARKDOWN = `# Holiday notes

Bring the **hats**, the _sun cream_ and the [map](https://example.com/map).

## Packing list

- Passports
- Chargers for every phone, the camera and the little speaker that plays music on the beach

\`\`\`sh
rsync -av photos/ backup:/holiday/2026/
\`\`\`
`;

/** Olive's files of every kind, collections, requests, an unfinished upload, tokens and webhooks. */
async function olivesThings(cookie: string): Promise<void> {
  // Webhooks first, so that the uploads leave deliveries: one receiver takes them, one refuses.
  const [taking, refusing] = await Promise.all([startReceiver(), startReceiver(() => 500)]);
  receivers.push(taking, refusing);
  const hooks: string[] = [];
  for (const receiver of [taking, refusing]) {
    const { webhook } = await api(cookie, 'POST', '/api/v1/webhooks', { url: receiver.url, events: ['file.uploaded'] });
    hooks.push(webhook.id);
  }
  const upload = (filename: string, type: string, content: string | Uint8Array) =>
    apiUpload(app, cookie, { filename, type, content }).then((file) => file.id);
  ids.image = await upload('beach.png', 'image/png', makePng(960, 640));
  const harbour = await upload('harbour.png', 'image/png', makePng(480, 640));
  ids.video = await upload('clip.mp4', 'video/mp4', sampleOf('video/mp4', 4096));
  ids.source = await upload('playlist.ts', 'text/plain', SOURCE);
  ids.markdown = await upload('README.md', 'text/markdown', MARKDOWN);
  ids.pdf = await upload('report.pdf', 'application/pdf', onePagePdf());
  ids.other = await upload('archive.zip', 'application/zip', sampleOf('application/zip', 20_000));
  await upload(
    'Minutes of the annual general meeting of the allotment association, with every comment (final, v3).docx',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    sampleOf('application/zip', 9000),
  );
  ids.locked = await uploadWith(cookie, 'The plans for the garden.\n', 'plans.txt', { password: LOCK });
  ids.limited = await uploadWith(cookie, 'Five looks at most.\n', 'limited.txt', { maxDownloads: '5' });
  ids.usedUp = await uploadWith(cookie, 'Once only.\n', 'once.txt', { maxDownloads: '1' });
  await (await fetch(`${app.url}/f/${ids.usedUp}/raw`)).arrayBuffer();
  ids.expired = await uploadWith(cookie, 'Gone soon.\n', 'brief.txt', { expiresIn: '1' });

  const collection = await api(cookie, 'POST', '/api/v1/collections', {
    title: 'Holiday 2026',
    files: [
      { id: ids.image, path: 'photos/beach.png' },
      { id: harbour, path: 'photos/day two/harbour.png' },
      { id: ids.markdown, path: 'notes/README.md' },
      { id: ids.pdf, path: 'report.pdf' },
      { id: ids.source, path: 'code/playlist.ts' },
    ],
  });
  ids.collection = collection.collection.id;
  const locked = await api(cookie, 'POST', '/api/v1/collections', {
    title: 'Private album',
    password: LOCK,
    files: [
      { id: harbour, path: 'album/harbour.png' },
      { id: ids.markdown, path: 'README.md' },
    ],
  });
  ids.lockedCollection = locked.collection.id;

  // An upload begun and left: the list of unfinished uploads.
  const tus = tusClient(app.url, cookie);
  const begun = await tus.create(4 * 1024 * 1024, { filename: 'holiday-video.mov', filetype: 'video/quicktime' });
  if (begun.status !== 201) throw new Error(`resumable upload: ${begun.status}`);
  const patched = await tus.patch(begun.headers.get('location') as string, 0, new Uint8Array(1536 * 1024));
  if (patched.status !== 204) throw new Error(`resumable upload's bytes: ${patched.status}`);

  const request = (body: Record<string, unknown>) =>
    api(cookie, 'POST', '/api/v1/requests', body).then((answer) => answer.request.id as string);
  ids.openRequest = await request({
    title: 'Scans for the tax return',
    message: 'Please send the receipts of March and April, as PDF or photos. Thank you!',
    maxFiles: 20,
    maxBytes: 2 * 1024 ** 3,
    requireName: true,
  });
  ids.closedRequest = await request({ title: 'Wedding photos', message: 'All of them, even the blurry ones.' });
  ids.lockedRequest = await request({ title: 'Contracts', password: LOCK });
  ids.receiptsRequest = await request({ title: 'Receipts of the trip to the mountains, for the shared costs' });
  await sendToRequest(
    ids.openRequest,
    'Ines Fernández',
    'Both receipts of March; April follows next week.',
    'march.pdf',
  );
  await sendToRequest(ids.closedRequest, 'Tom', '', 'ceremony.pdf');
  await api(cookie, 'PATCH', `/api/v1/requests/${ids.closedRequest}`, { closed: true });

  for (const [name, expiresInDays] of [
    ['backup script', '90'],
    ['ShareX on the laptop', ''],
  ]) {
    const token = await postForm(app, '/settings', { intent: 'create-token', name, expiresInDays }, { cookie });
    if (token.status !== 201) throw new Error(`token: ${token.status}`);
  }
  // The uploads above reach both receivers, and each delivery listed has been tried.
  await taking.waitFor(9);
  await refusing.waitFor(9);
  for (const hook of hooks) {
    await until(`the deliveries of ${hook} tried`, async () => {
      const { deliveries } = await api(cookie, 'GET', `/api/v1/webhooks/${hook}/deliveries`);
      return (deliveries as Array<{ attempts: number }>).every((delivery) => delivery.attempts > 0);
    });
  }
}

setUpBrowserSuite(
  {
    env: { WEBHOOK_ALLOW_PRIVATE: 'on' },
    options: NO_SWEEP,
    users: ['olive', 'paige', 'emil', 'flo'],
    timeout: 120_000,
  },
  async (suite) => {
    ({ app, browser } = suite);
    [cookies.olive, cookies.paige, cookies.emil, floCookie] = suite.cookies;
    SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'page-matrix-'));
    console.log(`page-matrix-browser: screenshots of every page are in ${SHOTS}`);
    const url = new URL(app.url);
    url.hostname = 'localhost';
    site = url.origin;
    // Two pages of files (a page is 100).
    for (let batch = 0; batch < 102; batch += 17) {
      await Promise.all(
        Array.from({ length: 17 }, (_, i) =>
          apiUpload(app, cookies.paige, { filename: `scan-${batch + i + 1}.txt`, type: 'text/plain', content: 'x' }),
        ),
      );
    }
    const firstPage = await (await fetch(`${app.url}/files`, { headers: { cookie: cookies.paige } })).text();
    olderFilesPath = (/href="(\/files\?cursor=[^"]+)"/.exec(firstPage)?.[1] ?? '').replace(/&amp;/g, '&');
    if (olderFilesPath === '') throw new Error('no link to the older files on /files');
    await olivesThings(cookies.olive);
    await turnOnTwoFactorOnPages(app, cookies.olive);
    await until('the link set to expire after a second gone', async () => {
      return (await fetch(`${app.url}/f/${ids.expired}`)).status === 410;
    });
  },
);

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** Waits until `done` says yes (for the set-up, where expect.poll is not available). */
async function until(what: string, done: () => Promise<boolean>, timeoutMs = 15_000) {
  const giveUp = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > giveUp) throw new Error(`still not ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A browser context as a person of this kind opens the site in (the theme is switched on the page). */
function newContext(js: boolean, width: number): Promise<BrowserContext> {
  return browser.newContext({ javaScriptEnabled: js, viewport: { width, height: 900 }, colorScheme: 'light' });
}

/** Logs the context in as `cookie`'s user, or out (a visitor), forgetting every other cookie. */
async function signInAs(context: BrowserContext, cookie: string | null) {
  await context.clearCookies();
  if (cookie === null) return;
  const value = cookie.slice(cookie.indexOf('=') + 1);
  await context.addCookies([{ name: 'token', value, domain: 'localhost', path: '/', httpOnly: true, sameSite: 'Lax' }]);
}

/** At most this many lines of each kind of fault per view: a table's rows repeat the same one. */
const FAULTS_SHOWN = 6;

/** The first lines of a list, then how many more there are. */
function firstOf(lines: string[]): string[] {
  const unique = [...new Set(lines)];
  if (unique.length <= FAULTS_SHOWN) return unique;
  return [...unique.slice(0, FAULTS_SHOWN), `…and ${unique.length - FAULTS_SHOWN} more`];
}

/**
 * The page as it is, in the light and then the dark colour scheme: a screenshot of each, and
 * what is wrong with its layout, one line each naming the view, the theme and the screenshot.
 * A very long page (a hundred files) is shot as its first and its last screen, not whole.
 */
async function layoutFaults(page: Page, view: string, long = false): Promise<string[]> {
  const faults: string[] = [];
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    const shot = path.join(SHOTS, `${view}-${theme}${long ? '-top' : ''}.png`);
    await page.screenshot({ path: shot, fullPage: !long });
    if (long) {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.screenshot({ path: path.join(SHOTS, `${view}-${theme}-end.png`) });
    }
    const sideways = await sidewaysScroll(page);
    const text = await textLayout(page);
    const where = `${view} in ${theme} (${shot})`;
    if (sideways.scrolls)
      faults.push(`${where}: the page scrolls sideways, ${sideways.widths}: ${sideways.culprits.join('; ')}`);
    faults.push(...firstOf(text.cutOff).map((line) => `${where}: cut off: ${line}`));
    faults.push(...firstOf(text.overlaps).map((line) => `${where}: overlap: ${line}`));
  }
  return faults;
}

const jsWords = (js: boolean) => (js ? 'on' : 'off');

describe.skipIf(!hasChromium)(`every page in Chromium${SKIP_NOTE}`, () => {
  // With JavaScript and without, side by side (each with its own page, one width after the
  // other): the app and the browser each have a core to work on.
  for (const js of SCRIPTS) {
    describe(`JavaScript ${jsWords(js)}`, { concurrent: true }, () => {
      for (const width of WIDTHS) {
        describe.sequential(`${width} px`, () => {
          let context: BrowserContext;
          let page: Page;
          beforeAll(async () => {
            context = await newContext(js, width);
            context.setDefaultTimeout(15_000);
            page = await context.newPage();
          });
          afterAll(() => context?.close());

          for (const pageCase of PAGES) {
            it(`when ${pageCase.name} is opened with JavaScript ${jsWords(js)} at ${width} px, then in the light and the dark theme nothing scrolls sideways or is cut off and no text overlaps`, {
              timeout: STEP_TIMEOUT,
            }, async ({ expect }) => {
              await signInAs(context, pageCase.who === 'visitor' ? null : cookies[pageCase.who]);
              await pageCase.before?.();
              const response: Response | null = await page.goto(`${site}${pageCase.path()}`);
              if (!pageCase.reach) expect(response?.status()).toBe(pageCase.status ?? 200);
              if (js) await waitForHydration(page);
              await pageCase.reach?.(page, js);
              // A gallery card draws a long name in two boxes (its start, cut short, and its
              // extension), which innerText reads on two lines.
              const unspaced = (text: string) => text.replace(/\s+/g, '');
              expect(unspaced(await page.locator('main').innerText())).toContain(unspaced(pageCase.shows));
              const view = `${pageCase.name}-js-${jsWords(js)}-${width}`;
              expect(await layoutFaults(page, view, pageCase.long)).toEqual([]);
            });
          }
        });
      }
    });
  }
});

describe.skipIf(!hasChromium)(`the flows through the pages in Chromium on a 390 px phone${SKIP_NOTE}`, () => {
  for (const js of SCRIPTS)
    describe(`JavaScript ${jsWords(js)}`, () => {
      const mode = `with JavaScript ${jsWords(js)}`;
      const view = (step: string) => `flow-${step}-js-${jsWords(js)}-390`;
      let context: BrowserContext;
      let page: Page;
      beforeAll(async () => {
        context = await newContext(js, 390);
        context.setDefaultTimeout(15_000);
        page = await context.newPage();
      });
      afterAll(() => context?.close());

      /** Opens an address of the site and waits for its JavaScript when it runs. */
      const open = async (address: string) => {
        const response = await page.goto(address.startsWith('http') ? address : `${site}${address}`);
        if (js) await waitForHydration(page);
        return response;
      };

      it(`when a person logs in ${mode} at 390 px, then in the light and the dark theme the login page and their files neither scroll sideways nor cut off text, and no text overlaps`, {
        timeout: STEP_TIMEOUT,
      }, async () => {
        const faults: string[] = [];
        await signInAs(context, null);
        await open('/login');
        faults.push(...(await layoutFaults(page, view('login'))));
        await page.getByLabel('Username').fill('flo');
        await page.getByLabel('Password').fill(DEFAULT_PASSWORD);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL(`${site}/files`);
        // With JavaScript the address changes first and the new page is drawn a moment later.
        await page.locator('h1', { hasText: 'My files' }).waitFor();
        if (js) await waitForHydration(page);
        expect(await page.locator('h1').innerText()).toBe('My files');
        faults.push(...(await layoutFaults(page, view('login-done'))));
        expect(faults).toEqual([]);
      });

      it(`when a person uploads a file on /upload ${mode} at 390 px, then its page shows its link at BASE_URL, and in both themes no page on the way scrolls sideways, cuts off text or has text overlapping`, {
        timeout: STEP_TIMEOUT,
      }, async () => {
        const faults: string[] = [];
        await signInAs(context, floCookie);
        await open('/upload');
        await page.locator('input[type=file]').setInputFiles({
          name: `ferry-timetable-${jsWords(js)}.txt`,
          mimeType: 'text/plain',
          buffer: Buffer.from('09:15 Harbour → Island\n17:40 Island → Harbour\n'),
        });
        faults.push(...(await layoutFaults(page, view('upload-chosen'))));
        await page.locator('main').getByRole('button', { name: 'Upload', exact: true }).click();
        await page.waitForURL(/\/f\/[A-Za-z0-9_-]+$/);
        if (js) await waitForHydration(page);
        expect(await page.getByRole('textbox', { name: 'Share link' }).inputValue()).toMatch(
          new RegExp(`^${app.url}/f/[A-Za-z0-9_-]+$`),
        );
        faults.push(...(await layoutFaults(page, view('upload-done'))));
        expect(faults).toEqual([]);
      });

      it(`when a person makes a file request ${mode} at 390 px and a guest sends a file to it, then the owner's page lists it, and in both themes no page on the way scrolls sideways, cuts off text or has text overlapping`, {
        timeout: STEP_TIMEOUT,
      }, async () => {
        const faults: string[] = [];
        const title = `Photos of the ferry trip (${mode})`;
        await signInAs(context, floCookie);
        await open('/requests');
        await page.getByLabel('Title').fill(title);
        await page
          .getByLabel('Message to the people who send (optional)')
          .fill('The ones from the upper deck, please.');
        await page.getByRole('button', { name: 'Make the link' }).click();
        const link = page.getByRole('textbox', { name: `Link of ${title}` });
        await link.waitFor();
        faults.push(...(await layoutFaults(page, view('request-made'))));
        const address = new URL(await link.inputValue());

        await signInAs(context, null);
        await open(`${site}${address.pathname}`);
        expect(await page.locator('h1').innerText()).toBe(title);
        await page.locator('input[type=file]').setInputFiles({
          name: 'upper-deck.png',
          mimeType: 'image/png',
          buffer: makePng(320, 200),
        });
        faults.push(...(await layoutFaults(page, view('request-guest-chosen'))));
        await page.locator('main button[type=submit]').click();
        await expect.poll(() => page.getByRole('status').innerText()).toContain('1 file sent');
        faults.push(...(await layoutFaults(page, view('request-guest-sent'))));

        await signInAs(context, floCookie);
        await open('/requests');
        const item = page.locator('li[data-request-id]', { hasText: title });
        expect(await item.innerText()).toContain('upper-deck.png');
        faults.push(...(await layoutFaults(page, view('request-received'))));
        expect(faults).toEqual([]);
      });

      it(`when a visitor opens a password-protected file ${mode} at 390 px, tries a wrong password and then the right one, then in both themes no page on the way scrolls sideways, cuts off text or has text overlapping`, {
        timeout: STEP_TIMEOUT,
      }, async () => {
        const faults: string[] = [];
        await signInAs(context, null);
        const response = await open(`/f/${ids.locked}`);
        expect(response?.status()).toBe(401);
        await unlock(page, js, 'a wrong guess');
        faults.push(...(await layoutFaults(page, view('unlock-refused'))));
        await unlock(page, js);
        expect(await page.locator('h1.file-name').innerText()).toBe('plans.txt');
        faults.push(...(await layoutFaults(page, view('unlock-done'))));
        expect(faults).toEqual([]);
      });
    });
});
