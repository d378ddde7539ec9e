// Small things a user sees in Chromium: the new-token form empties after a token is made, the
// upload form's Expires select looks like the fields around it, and the signed-in header fits
// on one line on a 390 px phone.
import type { Browser, BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';

const STEP_TIMEOUT = 60_000;

let app: TestApp;
let browser: Browser;
let cookie: string;

setUpBrowserSuite({ users: ['detailer'], timeout: STEP_TIMEOUT }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

async function signedIn(viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  return context;
}

describe.skipIf(!hasChromium)(`small things on the pages, in Chromium${SKIP_NOTE}`, () => {
  it(
    'when a token is made with JavaScript, then its name field is empty again, ready for the next one',
    async () => {
      const context = await signedIn();
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/settings`);
        await waitForHydration(page);
        const name = page.locator('.token-form input[name="name"]');
        await name.fill('ShareX on my laptop');
        await page.getByRole('button', { name: 'Create token' }).click();
        await page.getByText('Token “ShareX on my laptop” created.').waitFor();
        expect(await name.inputValue()).toBe('');
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when the upload form is shown, then its Expires select has the border, padding, corners and background of the text fields',
    async () => {
      const context = await signedIn();
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/upload`);
        const look = (selector: string) =>
          page
            .locator(selector)
            .first()
            .evaluate((element) => {
              const style = getComputedStyle(element);
              return [
                style.borderTopWidth,
                style.borderTopColor,
                style.borderRadius,
                style.paddingTop,
                style.paddingLeft,
                style.backgroundColor,
                style.fontSize,
                style.fontFamily,
              ];
            });
        const select = await look('main select');
        const field = await look('main input[type="number"], main input[type="password"]');
        expect(select).toEqual(field);
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );

  it(
    'when a signed-in user opens a page on a 390 px phone, then every item of the header is on one line',
    async () => {
      const context = await signedIn({ width: 390, height: 844 });
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/files`);
        const tops = await page
          .locator('.site-header nav > *')
          .evaluateAll((items) => items.map((item) => Math.round(item.getBoundingClientRect().top)));
        expect(tops).toHaveLength(5);
        // One line: every item starts within a few pixels of the first (a wrapped one is a line lower).
        const widths = await page
          .locator('.site-header nav > *')
          .evaluateAll((items) =>
            items.map((item) => `${item.textContent}:${Math.round(item.getBoundingClientRect().width)}`),
          );
        for (const top of tops) expect(Math.abs(top - tops[0]), widths.join(' ')).toBeLessThanOrEqual(6);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow).toBe(0);
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT,
  );
});
