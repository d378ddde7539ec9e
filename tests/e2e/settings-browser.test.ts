// The settings page's tokens in Chromium (ADR 0015), with JavaScript on and off: a token is
// created and shown once (with a copy button once JavaScript runs), listed, and revoked.
import type { Browser, BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { answerDialog, waitForHydration } from '../helpers/pages-browser';

let app: TestApp;
let browser: Browser;
let cookie: string;

setUpBrowserSuite({ users: ['tinkerer'] }, (suite) => {
  ({ app, browser } = suite);
  [cookie] = suite.cookies;
});

async function loggedIn(js: boolean): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled: js,
    permissions: js ? ['clipboard-read', 'clipboard-write'] : [],
  });
  await context.addCookies([
    { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  return context;
}

describe.skipIf(!hasChromium)(`the settings page in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    it(`when a token is created and then revoked (${mode}), then it is shown once${js ? ' with a working copy button' : ''}, listed by name, and stops working`, async () => {
      const context = await loggedIn(js);
      try {
        const page = await context.newPage();
        await page.goto(`${app.url}/settings`);
        if (js) await waitForHydration(page, 'form.token-form');
        const name = `token ${mode}`;
        await page.getByLabel('Name').fill(name);
        await page.getByRole('button', { name: 'Create token' }).click();
        const field = page.getByLabel('Your new API token');
        await field.waitFor();
        const token = await field.inputValue();
        expect(token).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
        const copy = page.getByRole('button', { name: 'Copy token' });
        if (js) {
          await copy.click();
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
        } else {
          expect(await copy.count()).toBe(0);
        }
        expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
          200,
        );

        await page.goto(`${app.url}/settings`);
        expect(await page.content()).not.toContain(token);
        const row = page.locator('table.tokens tr', { hasText: name });
        expect(await row.locator('code').textContent()).toBe(`${token.slice(0, 10)}…`);
        if (js) await waitForHydration(page, 'form.token-form');
        await row.getByRole('button', { name: `Revoke ${name}` }).click();
        // With JavaScript the page asks first; without it the form revokes at once.
        if (js) await answerDialog(page, 'Revoke');
        await page.getByText('The token was revoked').waitFor();
        // With JavaScript the list is fetched again after the notice: the row goes a moment later.
        await expect.poll(() => page.locator('table.tokens tr', { hasText: name }).count()).toBe(0);
        expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
          401,
        );
      } finally {
        await context.close();
      }
    });
  }
});
