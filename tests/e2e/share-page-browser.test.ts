// The share page (/f/<id>) in Chromium: on a desktop window the image takes the page's width with
// the details beside it; on a 390 px phone, without JavaScript and in dark mode, the page fits the
// screen and source keeps its numbered, coloured lines.
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap } from '../helpers/pages-browser';
import { apiUpload, makePng } from '../helpers/pages-fixtures';

const STEP_TIMEOUT = 60_000;
const PHONE = { width: 390, height: 844 };

let app: TestApp;
let browser: Browser;
let imageId: string;
let sourceId: string;

const SOURCE = [
  '// A line much longer than a phone is wide, which scrolls inside its box and never widens the page around it.',
  'export const answer: number = 42;',
  'function shout(text: string): string {',
  '  return text.toUpperCase() + "!";',
  '}',
  '',
].join('\n');

setUpBrowserSuite({ users: ['sharer'], timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  const [cookie] = suite.cookies;
  const image = await apiUpload(app, cookie, {
    filename: 'landscape.png',
    type: 'image/png',
    content: makePng(1600, 1000),
  });
  const source = await apiUpload(app, cookie, { filename: 'shout.ts', type: 'video/mp2t', content: SOURCE });
  imageId = image.id;
  sourceId = source.id;
});

/** Opens a share page as a visitor (no session) in a fresh context. */
async function visit(id: string, options: BrowserContextOptions): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(`${app.url}/f/${id}`);
  return { page, close: () => context.close() };
}

const horizontalOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Waits until the preview image has loaded, then gives its box. */
async function previewImageBox(page: Page) {
  const image = page.locator('section.preview img');
  await page.waitForFunction(() => {
    const element = document.querySelector<HTMLImageElement>('section.preview img');
    return !!element && element.complete && element.naturalWidth > 0;
  });
  return (await image.boundingBox())!;
}

describe.skipIf(!hasChromium)(`the share page in Chromium${SKIP_NOTE}`, () => {
  it(
    'when an image is opened in a 1280 px window, then it is shown wider than 600 px with the details and Download in a column on its right',
    async () => {
      const { page, close } = await visit(imageId, { viewport: { width: 1280, height: 900 } });
      try {
        const image = await previewImageBox(page);
        expect(image.width).toBeGreaterThan(600);
        const details = (await page.locator('.share-details').boundingBox())!;
        expect(details.x).toBeGreaterThanOrEqual(image.x + image.width);
        const download = page.getByRole('link', { name: /^Download \(/ });
        expect(await download.isVisible()).toBe(true);
        expect(await horizontalOverflow(page)).toBe(0);
        await snap(page, 'share-page-desktop');
      } finally {
        await close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when the image is opened on a 390 px phone without JavaScript, then it fills the screen width and nothing scrolls sideways',
    async () => {
      const { page, close } = await visit(imageId, { viewport: PHONE, javaScriptEnabled: false });
      try {
        const image = await previewImageBox(page);
        expect(image.width).toBeGreaterThan(300);
        expect(image.x + image.width).toBeLessThanOrEqual(PHONE.width);
        expect(await horizontalOverflow(page)).toBe(0);
        expect(await page.getByRole('link', { name: /^Download \(/ }).isVisible()).toBe(true);
      } finally {
        await close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when source is opened on a 390 px phone in dark mode, then its long line scrolls inside the preview, lines are numbered, and keywords are coloured for a dark page',
    async () => {
      const light = await visit(sourceId, { viewport: PHONE, colorScheme: 'light' });
      const dark = await visit(sourceId, { viewport: PHONE, colorScheme: 'dark' });
      try {
        const keywordColour = (page: Page) =>
          page
            .locator('.text-preview .hljs-keyword')
            .first()
            .evaluate((element) => getComputedStyle(element).color);
        expect(await horizontalOverflow(dark.page)).toBe(0);
        const box = await dark.page
          .locator('pre.text-preview')
          .evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
        expect(box.scroll).toBeGreaterThan(box.client);
        // The numbers are drawn beside each line, and are not part of its text.
        const firstNumber = await dark.page
          .locator('.text-preview .line')
          .first()
          .evaluate((element) => getComputedStyle(element, '::before').content);
        expect(firstNumber).not.toBe('none');
        expect(await dark.page.locator('.text-preview .line').count()).toBe(5);
        expect(await dark.page.locator('pre.text-preview').innerText()).toBe(SOURCE);
        // Coloured, and not with the light page's colours.
        const [lightKeyword, darkKeyword] = [await keywordColour(light.page), await keywordColour(dark.page)];
        expect(darkKeyword).not.toBe(lightKeyword);
        expect(darkKeyword).not.toBe(
          await dark.page.locator('pre.text-preview').evaluate((element) => getComputedStyle(element).color),
        );
        await snap(dark.page, 'share-page-source-dark-phone');
      } finally {
        await light.close();
        await dark.close();
      }
    },
    STEP_TIMEOUT,
  );
});
