// Two-factor codes as a person meets them in Chromium, with JavaScript on and off (ADR 0043,
// ADR 0063): signing in on the login page with the password or the provider, then a code or a
// recovery code (with JavaScript the code goes to `/login.data`, so the step's cookie must be
// sent there too), a wrong code tried again on the same step, and setting the codes up on the
// Settings page, where a mistyped first code keeps the same secret. The app's clock is the
// test's, moved to the middle of a new 30-second step before each code.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, startApp, TestClock, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider';
import { snap, waitForHydration } from '../helpers/pages-browser';
import { middleOfNextStep, totpCode } from '../helpers/totp';

const clock = new TestClock();
let provider: TestProvider;
let app: TestApp;
let browser: Browser;
let users = 0;

setUpBrowserSuite(
  {
    start: async () => {
      provider = await startTestProvider();
      return startApp({ ...provider.env, OIDC_REQUIRE_2FA: 'on' }, { clock });
    },
  },
  (suite) => {
    ({ app, browser } = suite);
  },
);
afterAll(async () => {
  await provider?.stop();
});

/** The code of `secret` in a new 30-second step: never one used already, never one about to end. */
function nextCode(secret: string): string {
  clock.advance(middleOfNextStep(clock.now()) - clock.now());
  return totpCode(secret, clock.now());
}

/** A 6-digit code that is none of `secret`'s codes the app takes now (the step and one either side). */
function wrongCode(secret: string): string {
  const taken = [-1, 0, 1].map((steps) => totpCode(secret, clock.now() + steps * 30_000));
  return ['000000', '111111', '222222', '333333'].find((code) => !taken.includes(code)) ?? '444444';
}

function api(path: string, cookie: string, method = 'GET', body?: unknown) {
  return fetch(`${app.url}/api/v1${path}`, {
    method,
    headers: { cookie, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A new user of its own with two-factor codes on (set up through the API), not signed in anywhere. */
async function userWithCodes(): Promise<{ username: string; secret: string; recoveryCodes: string[] }> {
  const username = `guarded${++users}`;
  await app.createUser(username);
  const cookie = await app.login(username);
  const { secret } = (await (await api('/me/2fa', cookie, 'POST', {})).json()) as { secret: string };
  const confirmed = await api('/me/2fa/confirm', cookie, 'POST', { code: nextCode(secret) });
  expect(confirmed.status).toBe(200);
  const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
  return { username, secret, recoveryCodes };
}

/**
 * A fresh browser context with JavaScript on or off, closed whatever happens. No page of it may
 * throw or log an error, beyond the browser's note of a refusal the test provokes (400, 401).
 * With JavaScript, `dataPosts` collects the forms the page sent by fetch (their paths).
 */
async function withPage(
  js: boolean,
  body: (page: Page, dataPosts: string[]) => Promise<void>,
  { width = 1280, cookie }: { width?: number; cookie?: string } = {},
): Promise<void> {
  const context: BrowserContext = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width, height: 800 },
  });
  context.setDefaultTimeout(15_000);
  if (cookie)
    await context.addCookies([
      { name: 'token', value: cookie.split('=')[1], url: app.url, httpOnly: true, sameSite: 'Lax' },
    ]);
  const errors: string[] = [];
  const dataPosts: string[] = [];
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    // The provider's own pages (the OIDC sign-in) are not ours to judge.
    if (!page.url().startsWith(app.url)) return;
    if (message.type() === 'error' && !/status of (400|401)\b/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'POST' && url.pathname.endsWith('.data')) dataPosts.push(url.pathname);
  });
  try {
    await body(page, dataPosts);
  } finally {
    await context.close();
  }
  expect(errors).toEqual([]);
}

/** The login page's first step: the password, then the code step shows. */
async function givePassword(page: Page, js: boolean, username: string, path = '/login'): Promise<void> {
  await page.goto(`${app.url}${path}`);
  if (js) await waitForHydration(page, 'main form');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(DEFAULT_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByLabel('Two-factor code').waitFor();
  if (js) await waitForHydration(page, 'main form');
}

async function giveCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Two-factor code').fill(code);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Signed in as `username`: the page's header offers to log them out (the session cookie works). */
async function expectSignedInAs(page: Page, username: string): Promise<void> {
  const logOut = page.locator('header').getByRole('button', { name: 'Log out' });
  await logOut.waitFor();
  await expect(logOut.getAttribute('title')).resolves.toBe(`Logged in as ${username}`);
}

describe.skipIf(!hasChromium)(`signing in with a two-factor code in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    it(`when the password and then a right code are given (${mode}), then the person is on My files, signed in`, async () => {
      const { username, secret } = await userWithCodes();
      await withPage(js, async (page, dataPosts) => {
        await givePassword(page, js, username);
        await expect(page.locator('main').textContent()).resolves.toContain(
          `Enter the code your authenticator app shows for ${username}`,
        );
        await giveCode(page, nextCode(secret));
        await page.waitForURL(`${app.url}/files`);
        await expectSignedInAs(page, username);
        // With JavaScript both steps went by fetch to the route's data (single fetch, ADR 0031).
        expect(dataPosts).toEqual(js ? ['/login.data', '/login.data'] : []);
      });
    });

    it(`when the password and then a recovery code are given (${mode}), then the person is where they were going, signed in, and that recovery code is spent`, async () => {
      const { username, recoveryCodes } = await userWithCodes();
      await withPage(js, async (page) => {
        await givePassword(page, js, username, '/login?redirectTo=%2Fsettings');
        await giveCode(page, recoveryCodes[2].toUpperCase());
        await page.waitForURL(`${app.url}/settings`);
        await expectSignedInAs(page, username);
        await expect(page.getByText('9 recovery codes are left').count()).resolves.toBe(1);
      });
      const again = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: DEFAULT_PASSWORD, code: recoveryCodes[2] }),
      });
      expect(again.status).toBe(401);
      expect(await again.json()).toEqual({
        error: 'The two-factor code is wrong or was already used',
        twoFactorRequired: true,
      });
    });

    it(`when a wrong code is given (${mode}), then the code step says so with an empty field to try again, and the right code then signs in`, async () => {
      const { username, secret } = await userWithCodes();
      await withPage(js, async (page) => {
        await givePassword(page, js, username);
        clock.advance(middleOfNextStep(clock.now()) - clock.now());
        await giveCode(page, wrongCode(secret));
        await page.getByRole('alert').waitFor();
        await expect(page.getByRole('alert').textContent()).resolves.toBe(
          'The two-factor code is wrong or was already used.',
        );
        await expect(page.locator('main').textContent()).resolves.toContain(
          `Enter the code your authenticator app shows for ${username}`,
        );
        await expect(page.getByLabel('Two-factor code').inputValue()).resolves.toBe('');
        await expect(page.getByLabel('Password').count()).resolves.toBe(0);
        await giveCode(page, nextCode(secret));
        await page.waitForURL(`${app.url}/files`);
        await expectSignedInAs(page, username);
      });
    });

    it(`when a user signs in with the provider and then gives a right code (${mode}), then they are on My files, signed in`, async () => {
      const { username, secret } = await userWithCodes();
      const subject = `${username}-at-acme`;
      await app.rows('update users set oidc_subject = ? where username = ?', [subject, username]);
      provider.accounts.set(subject, { preferred_username: username });
      await withPage(js, async (page) => {
        await page.goto(`${app.url}/login`);
        await page.getByRole('link', { name: 'Sign in with Acme' }).click();
        await page.waitForURL(`${provider.issuer}/**`);
        await page.locator('input[name="login"]').fill(subject);
        await page.locator('input[name="password"]').fill('anything');
        await page.getByRole('button', { name: 'Sign-in' }).click();
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByLabel('Two-factor code').waitFor();
        expect(new URL(page.url()).pathname).toBe('/login');
        if (js) await waitForHydration(page, 'main form');
        await giveCode(page, nextCode(secret));
        await page.waitForURL(`${app.url}/files`);
        await expectSignedInAs(page, username);
      });
    });

    it(`when wrong codes were tried for the account since its owner last signed in (${mode}), then the page after the sign-in with a code tells of them, once`, async () => {
      const { username, secret } = await userWithCodes();
      // As a lock-out leaves them (ADR 0058): ten wrong codes, an hour ago.
      await app.rows('update users set unreported_wrong_codes = ?, wrong_codes_locked_at = ? where username = ?', [
        10,
        clock.now() - 3_600_000,
        username,
      ]);
      await withPage(js, async (page) => {
        await givePassword(page, js, username);
        await giveCode(page, nextCode(secret));
        await page.waitForURL(`${app.url}/files`);
        await expectSignedInAs(page, username);
        await expect(page.getByRole('alert').textContent()).resolves.toMatch(
          /^10 wrong sign-in codes were tried for your account on .+\. If it was not you, change your password\.$/,
        );
        await page.goto(`${app.url}/files`);
        await expectSignedInAs(page, username);
        await expect(page.getByRole('alert').count()).resolves.toBe(0);
      });
    });
  }

  it('when the code step is shown on a wide and on a narrow screen, then its screenshots are taken', async () => {
    const { username } = await userWithCodes();
    for (const width of [1280, 390]) {
      await withPage(
        true,
        async (page) => {
          await givePassword(page, true, username);
          await snap(page, `login-code-step-${width}`);
          clock.advance(middleOfNextStep(clock.now()) - clock.now());
          await giveCode(page, '000000');
          await page.getByRole('alert').waitFor();
          await snap(page, `login-code-step-wrong-${width}`);
        },
        { width },
      );
    }
  });
});

describe.skipIf(!hasChromium)(`setting two-factor codes up on the Settings page in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';

    it(`when a wrong first code is typed (${mode}), then the page says so and still shows the same QR code and secret, and the right code from it turns the codes on`, async () => {
      const username = `setter${++users}`;
      await app.createUser(username);
      const cookie = await app.login(username);
      await withPage(
        js,
        async (page) => {
          await page.goto(`${app.url}/settings`);
          const section = page.locator('section[aria-labelledby="two-factor-heading"]');
          if (js) await waitForHydration(page, 'section[aria-labelledby="two-factor-heading"] form');
          await section.getByRole('button', { name: 'Set up two-factor codes' }).click();
          const qrCode = section.getByRole('img', { name: 'QR code of the secret' });
          await qrCode.waitFor();
          const secret = (await section.locator('code').textContent()) ?? '';
          expect(secret).toMatch(/^[A-Z2-7]{32}$/);
          const qrSource = await qrCode.getAttribute('src');

          clock.advance(middleOfNextStep(clock.now()) - clock.now());
          await section.getByLabel('Code from your app').fill(wrongCode(secret));
          await section.getByRole('button', { name: 'Turn on' }).click();
          await section.getByRole('alert').waitFor();
          await expect(section.getByRole('alert').textContent()).resolves.toMatch(/^The code is wrong; .*try again\.$/);
          await expect(section.locator('code').textContent()).resolves.toBe(secret);
          await expect(qrCode.getAttribute('src')).resolves.toBe(qrSource);
          await expect(section.getByLabel('Code from your app').inputValue()).resolves.toBe('');
          if (js) await snap(page, 'settings-two-factor-wrong-code');

          await section.getByLabel('Code from your app').fill(nextCode(secret));
          await section.getByRole('button', { name: 'Turn on' }).click();
          await section.getByText('Two-factor codes are on.').waitFor();
          await expect(section.getByRole('list', { name: 'Recovery codes' }).locator('li').count()).resolves.toBe(10);
        },
        { cookie },
      );
      expect(await (await api('/me/2fa', cookie)).json()).toEqual({ enabled: true, recoveryCodesLeft: 10 });
    });
  }
});
