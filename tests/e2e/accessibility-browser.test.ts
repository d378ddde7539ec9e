// Every page in Chromium, in the light and the dark theme (prefers-color-scheme), at a desktop
// width (1280 px) and on a phone (390 px): axe-core finds no serious or critical accessibility
// violation (contrast, names of fields and buttons, landmarks…), the header stays on one line
// on the phone, and no page scrolls sideways. Each view is saved as a screenshot under
// test-output/screenshots/<page>-<theme>-<width>.png for a person to look at; pixels never fail.
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { apiUpload, makePng, postForm, turnOnTwoFactorOnPages } from '../helpers/pages-fixtures';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const STEP_TIMEOUT = 180_000;
const THEMES = ['light', 'dark'] as const;
const WIDTHS = [1280, 390] as const;

type Who = 'owner' | 'empty' | 'visitor';
interface PageCase {
  name: string;
  who: Who;
  /** The address to open (known once the set-up ran). */
  path: () => string;
  /** What to do on the page after it opened, to reach the state under test. */
  reach?: (page: Page) => Promise<void>;
}

let app: TestApp;
let browser: Browser;
const cookies: Record<Exclude<Who, 'visitor'>, string> = { owner: '', empty: '' };
const ids = { photo: '', notes: '', readme: '', locked: '', collection: '', request: '' };

const PAGES: PageCase[] = [
  { name: 'home', who: 'visitor', path: () => '/' },
  { name: 'login', who: 'visitor', path: () => '/login' },
  {
    name: 'login-code',
    who: 'visitor',
    path: () => '/login',
    reach: async (page) => {
      await page.getByLabel('Username').fill('tessa');
      await page.getByLabel('Password').fill(DEFAULT_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByLabel('Two-factor code').waitFor();
    },
  },
  { name: 'files', who: 'owner', path: () => '/files' },
  { name: 'files-empty', who: 'empty', path: () => '/files' },
  {
    name: 'files-delete-dialog',
    who: 'owner',
    path: () => '/files',
    reach: async (page) => {
      await waitForHydration(page, 'main form');
      await page.getByRole('button', { name: 'Delete notes.txt' }).click();
      await page.getByRole('dialog').waitFor();
    },
  },
  { name: 'upload', who: 'owner', path: () => '/upload' },
  { name: 'share-owner', who: 'owner', path: () => `/f/${ids.photo}` },
  { name: 'share-visitor', who: 'visitor', path: () => `/f/${ids.photo}` },
  { name: 'share-text-visitor', who: 'visitor', path: () => `/f/${ids.notes}` },
  { name: 'share-markdown-visitor', who: 'visitor', path: () => `/f/${ids.readme}` },
  { name: 'share-locked', who: 'visitor', path: () => `/f/${ids.locked}` },
  { name: 'collection-owner', who: 'owner', path: () => `/c/${ids.collection}` },
  { name: 'collection-visitor', who: 'visitor', path: () => `/c/${ids.collection}` },
  { name: 'settings', who: 'owner', path: () => '/settings' },
  { name: 'settings-empty', who: 'empty', path: () => '/settings' },
  { name: 'settings-sharex', who: 'owner', path: () => '/settings/sharex' },
  { name: 'file-delete', who: 'owner', path: () => `/files/${ids.notes}/delete` },
  { name: 'collection-delete', who: 'owner', path: () => `/collections/${ids.collection}/delete` },
  { name: 'file-requests', who: 'owner', path: () => '/requests' },
  { name: 'file-request-guest', who: 'visitor', path: () => `/r/${ids.request}` },
  { name: 'not-found', who: 'visitor', path: () => '/no-such-page' },
];

setUpBrowserSuite({ timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  for (const username of ['olive', 'emil', 'tessa']) await app.createUser(username);
  [cookies.owner, cookies.empty] = await Promise.all([app.login('olive'), app.login('emil')]);
  const photo = await apiUpload(app, cookies.owner, { filename: 'beach.png', type: 'image/png', content: makePng() });
  const notes = await apiUpload(app, cookies.owner, {
    filename: 'notes.txt',
    type: 'text/plain',
    content: 'Bring the hats.\n',
  });
  const readme = await apiUpload(app, cookies.owner, {
    filename: 'README.md',
    type: 'text/markdown',
    content:
      '# Trip\n\nBring the **hats**, see [the map](https://example.com/map).\n\n> Leave at 8.\n\n| Day | Place |\n|-----|-------|\n| 1 | Beach |\n',
  });
  const locked = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie: cookies.owner },
    body: (() => {
      const form = new FormData();
      form.set('password', 'pony pony');
      form.set('file', new Blob(['secret plans'], { type: 'text/plain' }), 'plans.txt');
      return form;
    })(),
  });
  expect(locked.status).toBe(201);
  const collection = await fetch(`${app.url}/api/v1/collections`, {
    method: 'POST',
    headers: { cookie: cookies.owner, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: 'Holiday',
      files: [
        { id: photo.id, path: 'photos/beach.png' },
        { id: notes.id, path: 'notes.txt' },
      ],
    }),
  });
  expect(collection.status).toBe(201);
  ids.photo = photo.id;
  ids.notes = notes.id;
  ids.readme = readme.id;
  ids.locked = ((await locked.json()) as { file: { id: string } }).file.id;
  ids.collection = ((await collection.json()) as { collection: { id: string } }).collection.id;
  const token = await postForm(
    app,
    '/settings',
    { intent: 'create-token', name: 'backup script', expiresInDays: '90' },
    { cookie: cookies.owner },
  );
  expect(token.status).toBe(201);
  const request = await fetch(`${app.url}/api/v1/requests`, {
    method: 'POST',
    headers: { cookie: cookies.owner, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Scans for the tax return', message: 'Please send the receipts.' }),
  });
  expect(request.status).toBe(201);
  ids.request = ((await request.json()) as { request: { id: string } }).request.id;
  await turnOnTwoFactorOnPages(app, await app.login('tessa'));
});

/** axe-core's serious and critical violations on the page, one line each: the rule and where. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const results = await page.evaluate(() => (window as unknown as { axe: { run(): Promise<AxeResults> } }).axe.run());
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.id} (${violation.impact}) at ${node.target.join(' ')}: ${node.failureSummary ?? ''}`,
      ),
    );
}

/** Whether the header's brand and links sit on one line: its items share one row and it is no taller. */
function headerRows(page: Page) {
  return page.locator('.site-header nav').evaluate((nav) => {
    const items = Array.from(nav.children).map((child) => child.getBoundingClientRect());
    const style = getComputedStyle(nav);
    const inner = nav.clientHeight - Number.parseFloat(style.paddingTop) - Number.parseFloat(style.paddingBottom);
    const tallest = Math.max(...items.map((box) => box.height));
    const tops = items.map((box) => Math.round(box.top + box.height / 2));
    return { inner: Math.round(inner), tallest: Math.round(tallest), rows: new Set(tops).size };
  });
}

/**
 * Waits for the page's JavaScript to take over, as a visitor sees the page most of the time. A
 * page that is not hydrated in time is checked as it is: every page works without JavaScript,
 * and the build's scripts may be replaced under a running test by another build.
 */
async function settled(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () => {
        const main = document.querySelector('main');
        return !!main && Object.keys(main).some((key) => key.startsWith('__reactProps$'));
      },
      undefined,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
}

const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!hasChromium)(`every page's accessibility and look in Chromium${SKIP_NOTE}`, () => {
  for (const theme of THEMES) {
    for (const pageCase of PAGES) {
      it(
        `when the ${pageCase.name} page is opened in the ${theme} theme at ${WIDTHS.join(' and ')} px, then axe finds no serious or critical violation, the header is one line and nothing scrolls sideways`,
        async () => {
          const found: string[] = [];
          for (const width of WIDTHS) {
            const context = await browser.newContext({
              colorScheme: theme,
              viewport: { width, height: 900 },
              // axe is put into the page as a script of its own, which the page's policy would refuse.
              bypassCSP: true,
            });
            context.setDefaultTimeout(30_000);
            try {
              if (pageCase.who !== 'visitor') {
                const value = cookies[pageCase.who].split('=')[1];
                await context.addCookies([{ name: 'token', value, url: app.url, httpOnly: true, sameSite: 'Lax' }]);
              }
              const page = await context.newPage();
              await page.goto(`${app.url}${pageCase.path()}`);
              await settled(page);
              await pageCase.reach?.(page);
              const styled = await page.evaluate(
                () => getComputedStyle(document.documentElement).getPropertyValue('--space-4').trim() !== '',
              );
              expect(
                styled,
                `${pageCase.name} at ${width} px: the stylesheet did not load (a new build meanwhile?)`,
              ).toBe(true);
              found.push(...(await seriousViolations(page)).map((line) => `${width} px: ${line}`));
              await snap(page, `${pageCase.name}-${theme}-${width}`);
              expect(await sidewaysOverflow(page), `${pageCase.name} at ${width} px scrolls sideways`).toBe(0);
              const header = await headerRows(page);
              expect(header.rows, `${pageCase.name} at ${width} px: header items on ${header.rows} rows`).toBe(1);
              expect(
                header.inner,
                `${pageCase.name} at ${width} px: header taller than its tallest item`,
              ).toBeLessThanOrEqual(header.tallest + 1);
            } finally {
              await context.close();
            }
          }
          expect(found, `axe violations on ${pageCase.name} (${theme}):\n${found.join('\n')}`).toEqual([]);
        },
        STEP_TIMEOUT,
      );
    }
  }
});
