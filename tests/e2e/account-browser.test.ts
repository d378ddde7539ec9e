// The settings page's Password and Sessions sections in Chromium, with JavaScript on and off:
// changing the password logs the user's other sessions out and keeps this one; one session is
// logged out from the list; "Log out everywhere" ends them all, this one included.
import type { Browser, BrowserContext, Page, Response as PageResponse } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cookieFrom, DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { waitForHydration } from '../helpers/pages-browser';

/** Several bcrypt checks and page loads per test: room for a loaded two-core machine. */
const TEST_TIMEOUT_MS = 90_000;
const NEW_PASSWORD = 'a brand new passphrase';
/** What the page shows after a form post can come a moment later (with JavaScript the loader runs again). */
const POLL = { timeout: 15_000, interval: 100 };

let app: TestApp;
let browser: Browser;

setUpBrowserSuite({}, (suite) => {
  ({ app, browser } = suite);
});

/** A login over HTTP as a script would make it: its own session, named by its User-Agent. */
async function httpLogin(username: string, password = DEFAULT_PASSWORD, userAgent = 'curl/8.5.0'): Promise<Response> {
  return fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify({ username, password }),
  });
}

async function otherSession(username: string, userAgent?: string): Promise<string> {
  const res = await httpLogin(username, DEFAULT_PASSWORD, userAgent);
  expect(res.status).toBe(200);
  return cookieFrom(res);
}

async function filesStatus(cookie: string): Promise<number> {
  const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
  await res.arrayBuffer();
  return res.status;
}

/** The browser's own session, made through the login page (so the list shows Chromium). */
async function logInWithPage(page: Page, username: string, js: boolean): Promise<void> {
  await page.goto(`${app.url}/login`);
  if (js) await waitForHydration(page, 'form');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEFAULT_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname === '/files');
}

async function openSettings(page: Page, js: boolean): Promise<void> {
  await page.goto(`${app.url}/settings`);
  expect(new URL(page.url()).pathname).toBe('/settings');
  if (js) await waitForHydration(page, 'table.sessions form');
}

/** Clicks a button that posts a settings form and returns the answer to that post. */
async function post(page: Page, click: () => Promise<void>): Promise<PageResponse> {
  const [response] = await Promise.all([
    page.waitForResponse(
      (res) => res.request().method() === 'POST' && new URL(res.url()).pathname.replace(/\.data$/, '') === '/settings',
    ),
    click(),
  ]);
  return response;
}

async function sessionCookieValue(context: BrowserContext): Promise<string | undefined> {
  return (await context.cookies(app.url)).find((c) => c.name === 'token')?.value || undefined;
}

describe.skipIf(!hasChromium)(`the settings page's password and sessions in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    const tag = js ? 'js' : 'nojs';

    it(
      `when the user changes the password with the form (${mode}), then a wrong current password or a mismatch changes nothing, and the right one logs the other sessions out, keeps this one and makes the new password the one that works`,
      async () => {
        const username = `password-${tag}`;
        await app.createUser(username);
        const context = await browser.newContext({ javaScriptEnabled: js });
        try {
          const page = await context.newPage();
          await logInWithPage(page, username, js);
          const other = await otherSession(username);
          expect(await filesStatus(other)).toBe(200);

          await openSettings(page, js);
          const section = page.getByRole('region', { name: 'Password' });
          const current = section.getByLabel('Current password', { exact: true });
          const fresh = section.getByLabel('New password', { exact: true });
          const again = section.getByLabel('New password again', { exact: true });
          const change = section.getByRole('button', { name: 'Change password' });

          // The wrong current password: an alert, and nothing changes.
          await current.fill('not my password at all');
          await fresh.fill(NEW_PASSWORD);
          await again.fill(NEW_PASSWORD);
          expect((await post(page, () => change.click())).status()).toBe(400);
          await section.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
          expect(await section.getByRole('status').count()).toBe(0);

          // The new password typed differently twice: the same.
          await current.fill(DEFAULT_PASSWORD);
          await fresh.fill(NEW_PASSWORD);
          await again.fill(`${NEW_PASSWORD}!`);
          expect((await post(page, () => change.click())).status()).toBe(400);
          await section
            .getByRole('alert')
            .filter({ hasText: 'The new password and its confirmation do not match' })
            .waitFor();

          expect(await filesStatus(other)).toBe(200);
          expect((await httpLogin(username, NEW_PASSWORD)).status).toBe(401);
          // The old password still works: that makes a second other session.
          const third = await otherSession(username, 'python-requests/2.32.3');
          expect(await filesStatus(third)).toBe(200);

          // The right current password.
          await current.fill(DEFAULT_PASSWORD);
          await fresh.fill(NEW_PASSWORD);
          await again.fill(NEW_PASSWORD);
          expect((await post(page, () => change.click())).status()).toBe(200);
          await section
            .getByRole('status')
            .filter({ hasText: 'Your password was changed. 2 other sessions were logged out.' })
            .waitFor();
          expect(await section.getByRole('alert').count()).toBe(0);
          // With JavaScript the form stays on the page and is emptied; without, the new page's is empty.
          await expect
            .poll(() => Promise.all([current.inputValue(), fresh.inputValue(), again.inputValue()]), POLL)
            .toEqual(['', '', '']);

          expect(await filesStatus(other)).toBe(401);
          expect(await filesStatus(third)).toBe(401);
          expect((await httpLogin(username, DEFAULT_PASSWORD)).status).toBe(401);
          const afterwards = await httpLogin(username, NEW_PASSWORD);
          expect(afterwards.status).toBe(200);
          expect(await filesStatus(cookieFrom(afterwards))).toBe(200);

          // This browser is still logged in, and now lists itself and the login just made.
          await openSettings(page, js);
          await expect.poll(() => page.locator('table.sessions tr[data-session-id]').count(), POLL).toBe(2);
          const own = page.locator('table.sessions tr[aria-current="true"]');
          expect(await own.count()).toBe(1);
          expect(await own.textContent()).toContain('(this session)');
        } finally {
          await context.close();
        }
      },
      TEST_TIMEOUT_MS,
    );

    it(
      `when the user logs out another session from the list (${mode}), then its row goes and its cookie stops working while this browser stays; and "Log out everywhere" ends every session, this one included, and lands on /login`,
      async () => {
        const username = `sessions-${tag}`;
        await app.createUser(username);
        const context = await browser.newContext({ javaScriptEnabled: js });
        try {
          const page = await context.newPage();
          await logInWithPage(page, username, js);
          const curl = await otherSession(username, 'curl/8.5.0');
          const python = await otherSession(username, 'python-requests/2.32.3');

          await openSettings(page, js);
          const rows = page.locator('table.sessions tr[data-session-id]');
          expect(await rows.count()).toBe(3);
          const own = page.locator('table.sessions tr[aria-current="true"]');
          expect(await own.count()).toBe(1);
          expect(await own.textContent()).toContain('(this session)');
          expect(await own.textContent()).toMatch(/Chrom/);
          expect(await own.getByRole('button', { name: 'Log out this session' }).count()).toBe(1);
          const curlRow = page.locator('table.sessions tr[data-session-id]', { hasText: 'curl 8.5.0' });
          expect(await curlRow.count()).toBe(1);
          expect(await curlRow.getAttribute('aria-current')).toBeNull();
          expect(await curlRow.textContent()).not.toContain('(this session)');
          expect(await curlRow.textContent()).toContain('127.0.0.1');
          expect(
            await page.locator('table.sessions tr[data-session-id]', { hasText: 'python-requests 2.32.3' }).count(),
          ).toBe(1);

          const response = await post(page, () =>
            curlRow.getByRole('button', { name: 'Log out curl 8.5.0 session' }).click(),
          );
          expect(response.status()).toBe(200);
          await page
            .getByRole('region', { name: 'Sessions' })
            .getByRole('status')
            .filter({ hasText: 'The session was logged out.' })
            .waitFor();
          // With JavaScript the list is fetched again after the notice: the row goes a moment later.
          await expect
            .poll(() => page.locator('table.sessions tr[data-session-id]', { hasText: 'curl 8.5.0' }).count(), POLL)
            .toBe(0);
          await expect.poll(() => rows.count(), POLL).toBe(2);
          expect(await filesStatus(curl)).toBe(401);
          expect(await filesStatus(python)).toBe(200);
          expect(new URL(page.url()).pathname).toBe('/settings');
          expect(await own.count()).toBe(1);

          // Everywhere: the script's session, and this browser's, whose cookie is kept to try later.
          const ownToken = await sessionCookieValue(context);
          expect(ownToken).toBeTruthy();
          if (js) await waitForHydration(page, 'table.sessions form');
          await page.getByRole('button', { name: 'Log out everywhere' }).click();
          await page.waitForURL((url) => url.pathname === '/login');
          await page.getByRole('heading', { name: 'Log in' }).waitFor();
          expect(await sessionCookieValue(context)).toBeUndefined();
          expect(await filesStatus(python)).toBe(401);
          expect(await filesStatus(`token=${ownToken}`)).toBe(401);

          await page.goto(`${app.url}/settings`);
          expect(new URL(page.url()).pathname).toBe('/login');
          // Nor does the old cookie open the page, put back in the browser.
          await context.addCookies([
            { name: 'token', value: ownToken!, url: app.url, httpOnly: true, sameSite: 'Lax' },
          ]);
          await page.goto(`${app.url}/settings`);
          expect(new URL(page.url()).pathname).toBe('/login');
        } finally {
          await context.close();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }
});
