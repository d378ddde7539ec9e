// Invitations and sign-up in Chromium (ADR 0086), with JavaScript on and off, at the address the
// browser uses (localhost) while BASE_URL names 127.0.0.1, with REGISTRATION=open: an admin makes
// an invitation link in the console and revokes another; a visitor opens the link, makes an
// account and lands on their files; a revoked link says so (410); a visitor signs up from the
// login page. The pages at 1280 and 390 px, light and dark, are saved as screenshots and
// scroll no page sideways.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UserSchema } from '../../server/db/entities/user.entity';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { sidewaysScroll, snap, waitForHydration } from '../helpers/pages-browser';

const STEP_TIMEOUT = 120_000;
const PASSWORD = 'a perfectly fine password';

let app: TestApp;
let browser: Browser;
let site: string;
let adminCookie = '';

setUpBrowserSuite({ users: ['root'], env: { REGISTRATION: 'open' }, timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  [adminCookie] = suite.cookies;
  site = app.url.replace('127.0.0.1', 'localhost');
  await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: 'root' }, { isAdmin: true });
});

async function open(js: boolean, options: { admin?: boolean; width?: number; dark?: boolean } = {}) {
  const context = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.dark ? 'dark' : 'light',
  });
  context.setDefaultTimeout(30_000);
  if (options.admin)
    await context.addCookies([
      { name: 'token', value: adminCookie.split('=')[1], url: site, httpOnly: true, sameSite: 'Lax' },
    ]);
  return { context, page: await context.newPage() };
}

/** Makes an invitation on the console's page; the link it shows, at the browser's address. */
async function makeInvitation(page: Page, js: boolean, accounts: number): Promise<string> {
  await page.goto(`${site}/admin`);
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Invitations' }).click();
  await page.waitForURL(`${site}/admin/invitations`);
  if (js) await waitForHydration(page, 'main form');
  await page.getByLabel('Accounts it makes').fill(String(accounts));
  await page.getByLabel('Their quota').fill('1GB');
  const sent = js
    ? page.waitForRequest((request) => request.url().includes('/trpc/admin.createInvitation'))
    : page.waitForRequest(
        (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/admin/invitations',
      );
  await Promise.all([sent, page.getByRole('button', { name: 'Make an invitation link' }).click()]);
  const link = await page.locator('.invitation-link code').innerText();
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{24}$/);
  return `${site}${new URL(link).pathname}`;
}

/** Fills the form of an invitation's page or /signup and sends it. */
async function makeAccount(page: Page, js: boolean, username: string): Promise<void> {
  if (js) await waitForHydration(page, 'main form');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Make my account' }).click();
  await page.waitForURL(`${site}/files`);
  await page.locator('h1', { hasText: 'My files' }).waitFor();
}

describe.skipIf(!hasChromium)(`invitations and sign-up in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    const tag = js ? 'js' : 'nojs';

    it(
      `when an admin makes an invitation and a visitor opens it (${mode}), then the visitor makes an account with its quota and lands on their files`,
      async () => {
        const admin = await open(js, { admin: true });
        const visitor = await open(js);
        try {
          const link = await makeInvitation(admin.page, js, 1);
          await admin.page.getByRole('cell', { name: 'open' }).first().waitFor();
          await visitor.page.goto(link);
          await visitor.page.getByRole('heading', { name: 'Make your account' }).waitFor();
          await makeAccount(visitor.page, js, `invited-${tag}`);
          await visitor.page.getByText('of 1 GB used').waitFor();
          // Used up: the same link now says so.
          const again = await visitor.page.goto(link);
          expect(again?.status()).toBe(410);
          await visitor.page.getByText('This invitation has been used up').waitFor();
        } finally {
          await admin.context.close();
          await visitor.context.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      `when an admin revokes an invitation (${mode}), then its row says revoked and its link answers 410 saying so`,
      async () => {
        const admin = await open(js, { admin: true });
        const visitor = await open(js);
        try {
          const link = await makeInvitation(admin.page, js, 3);
          const row = admin.page.locator('table.invitations tbody tr').first();
          await row.getByRole('button', { name: 'Revoke' }).click();
          await admin.page.getByRole('status').filter({ hasText: 'The invitation is revoked' }).waitFor();
          await row.getByRole('cell', { name: 'revoked' }).waitFor();
          const answer = await visitor.page.goto(link);
          expect(answer?.status()).toBe(410);
          await visitor.page.getByText('This invitation was revoked.').waitFor();
        } finally {
          await admin.context.close();
          await visitor.context.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      `when a visitor follows "Sign up" from the login page (${mode}), then they make an account and land on their files`,
      async () => {
        const { context, page } = await open(js);
        try {
          await page.goto(`${site}/login`);
          await page.getByRole('link', { name: 'Sign up' }).click();
          await page.waitForURL(`${site}/signup`);
          await makeAccount(page, js, `signed-up-${tag}`);
          expect(await app.rows('select id from users where username = ?', [`signed-up-${tag}`])).toHaveLength(1);
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }

  it(
    'when the invitation pages and sign-up are opened at 1280 and 390 px, light and dark, then no page scrolls sideways',
    async () => {
      const { context, page } = await open(true, { admin: true });
      const link = await makeInvitation(page, true, 1);
      await context.close();
      for (const width of [1280, 390]) {
        for (const dark of [false, true]) {
          for (const [name, path, admin] of [
            ['admin-invitations', '/admin/invitations', true],
            ['invitation', new URL(link).pathname, false],
            ['signup', '/signup', false],
          ] as const) {
            const view = await open(true, { admin, width, dark });
            try {
              await view.page.goto(`${site}${path}`);
              await waitForHydration(view.page, 'main');
              await snap(view.page, `${name}-${dark ? 'dark' : 'light'}-${width}`);
              const sideways = await sidewaysScroll(view.page);
              expect(sideways.scrolls, `${path} at ${width} px: ${sideways.culprits.join('; ')}`).toBe(false);
            } finally {
              await view.context.close();
            }
          }
        }
      }
    },
    STEP_TIMEOUT,
  );
});
