// The whole sign-in with the provider as a person goes through it, in Chromium: the button on the
// login page, the provider's own login and consent pages, and back to My files (ADR 0044).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
import { hasChromium, launchBrowser } from '../helpers/browser';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider';

describe.skipIf(!hasChromium)('signing in with the provider in a browser', () => {
  let provider: TestProvider;
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    provider = await startTestProvider();
    app = await startApp(provider.env);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await provider?.stop();
  });

  it('when a linked user presses "Sign in with Acme" and signs in at the provider, then they are on My files, signed in', async () => {
    const id = await app.createUser('alice');
    await app.rows('update users set oidc_subject = ? where id = ?', ['alice-at-acme', id]);
    provider.accounts.set('alice-at-acme', { preferred_username: 'alice' });
    const page = await browser.newPage();
    try {
      await page.goto(`${app.url}/login`);
      await page.getByRole('link', { name: 'Sign in with Acme' }).click();
      await page.waitForURL(`${provider.issuer}/**`);
      await page.locator('input[name="login"]').fill('alice-at-acme');
      await page.locator('input[name="password"]').fill('anything');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${app.url}/files`);
      expect(new URL(page.url()).pathname).toBe('/files');
      await expect(page.locator('body').textContent()).resolves.toContain('alice');
    } finally {
      await page.close();
    }
  });
});
