// My files as a gallery (ADR 0046) in Chromium: two columns of cards on a 390 px phone, more on
// a 1280 px desktop, nothing wider than the window, the thumbnails loaded (lazily, as they come
// into view), the cards dark in dark mode; the view switch works with and without JavaScript.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { apiUpload, makePng } from '../helpers/pages-fixtures';

const STEP_TIMEOUT = 120_000;
const IMAGES = 7;

let app: TestApp;
let browser: Browser;
let cookie: string;

setUpBrowserSuite({ users: ['gina'], timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
  await apiUpload(app, cookie, { filename: 'report.pdf', type: 'application/pdf', content: '%PDF-1.4\n%%EOF\n' });
  await apiUpload(app, cookie, {
    filename: `a very long name of a holiday photo that goes on and on and on ${'x'.repeat(120)}.txt`,
    type: 'text/plain',
    content: 'x',
  });
  for (let i = 0; i < IMAGES; i++) {
    await apiUpload(app, cookie, {
      filename: `photo-${i}.png`,
      type: 'image/png',
      content: makePng(120 + i * 20, 90),
    });
  }
});

async function loggedIn(js: boolean, width: number, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  const context = await browser.newContext({ javaScriptEnabled: js, viewport: { width, height: 800 }, colorScheme });
  context.setDefaultTimeout(15_000);
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  return context;
}

/** How many cards the first line of the gallery holds. */
function columnsOf(page: Page): Promise<number> {
  return page.evaluate(() => {
    const cards = Array.from(document.querySelectorAll('.file-card')).map((card) => card.getBoundingClientRect());
    return cards.filter((box) => Math.abs(box.top - cards[0].top) < 1).length;
  });
}

/** Scrolls every thumbnail into view (they load lazily), then the natural width of each. */
async function thumbnailWidths(page: Page): Promise<number[]> {
  const images = page.locator('.file-gallery img');
  const count = await images.count();
  for (let i = 0; i < count; i++) {
    await images.nth(i).scrollIntoViewIfNeeded();
    await images.nth(i).evaluate(
      (img: HTMLImageElement) =>
        img.complete ||
        new Promise((resolve) => {
          img.addEventListener('load', resolve, { once: true });
          img.addEventListener('error', resolve, { once: true });
        }),
    );
  }
  return images.evaluateAll((all) => all.map((img) => (img as HTMLImageElement).naturalWidth));
}

describe('the gallery of My files in a browser', () => {
  for (const js of [false, true]) {
    it.skipIf(!hasChromium)(
      `when it is opened on a 390 px phone and on a 1280 px desktop (JavaScript ${js ? 'on' : 'off'}), then it has 2 columns, then more, nothing wider than the window, and every thumbnail loads`,
      async () => {
        for (const [width, expected] of [
          [390, (columns: number) => columns === 2],
          [1280, (columns: number) => columns > 2],
        ] as const) {
          const context = await loggedIn(js, width);
          try {
            const page = await context.newPage();
            await page.goto(`${app.url}/files?view=gallery`);
            if (js) await waitForHydration(page);
            expect(await page.locator('.file-card').count()).toBe(IMAGES + 2);
            const columns = await columnsOf(page);
            expect(expected(columns), `${columns} columns at ${width} px`).toBe(true);
            const overflow = await page.evaluate(
              () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
            );
            expect(overflow).toBe(0);
            const widths = await thumbnailWidths(page);
            expect(widths).toHaveLength(IMAGES);
            for (const natural of widths) expect(natural).toBeGreaterThan(0);
            // The PDF has its icon, not a picture.
            const report = page.locator('.file-card', { hasText: 'report.pdf' });
            expect(await report.locator('.file-type-icon[data-kind="document"]').count()).toBe(1);
            expect(await report.locator('img').count()).toBe(0);
            await snap(page, `gallery-${width}-js-${js ? 'on' : 'off'}`);
          } finally {
            await context.close();
          }
        }
      },
      STEP_TIMEOUT,
    );

    it.skipIf(!hasChromium)(
      `when the switch is pressed (JavaScript ${js ? 'on' : 'off'}), then the list turns into the gallery and back, and a new page remembers it`,
      async () => {
        const context = await loggedIn(js, 1280);
        try {
          const page = await context.newPage();
          await page.goto(`${app.url}/files?q=photo`);
          if (js) await waitForHydration(page);
          await page.locator('table.files').waitFor();
          await page.getByRole('button', { name: 'Gallery' }).click();
          await page.locator('ul.file-gallery').waitFor();
          expect(new URL(page.url()).search).toBe('?q=photo');
          const again = await context.newPage();
          await again.goto(`${app.url}/files`);
          await again.locator('ul.file-gallery').waitFor();
          await again.getByRole('button', { name: 'Table' }).click();
          await again.locator('table.files').waitFor();
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }

  it.skipIf(!hasChromium)(
    'when the system is in dark mode, then the cards are dark and their names light',
    async () => {
      const context = await loggedIn(false, 390, 'dark');
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/files?view=gallery`);
        const luminance = (selector: string, property: 'backgroundColor' | 'color') =>
          page
            .locator(selector)
            .first()
            .evaluate((el, prop) => {
              const [r, g, b] = (getComputedStyle(el)[prop as 'color'].match(/\d+(\.\d+)?/g) ?? []).map(Number);
              return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
            }, property);
        expect(await luminance('.file-card', 'backgroundColor')).toBeLessThan(0.3);
        expect(await luminance('.file-card-name', 'color')).toBeGreaterThan(0.7);
        await snap(page, 'gallery-390-dark');
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );
});
