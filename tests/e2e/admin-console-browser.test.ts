// The admin console in Chromium (ADR 0083), with JavaScript on and off, at the address the
// browser uses (localhost) while BASE_URL names 127.0.0.1: an admin reaches it from the header,
// searches and sorts the accounts, disables one from its "Manage" forms, and deletes one after
// the page that names what goes; a plain user meets the not-found page. Each view at 1280 and
// 390 px, light and dark, is saved as a screenshot and scrolls no page sideways.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UserSchema } from '../../server/db/entities/user.entity';
import type { TestApp } from '../helpers/app';
import { hasChromium, SKIP_NOTE } from '../helpers/browser';
import { setUpBrowserSuite } from '../helpers/browser-suite';
import { sidewaysScroll, snap, waitForHydration } from '../helpers/pages-browser';

const STEP_TIMEOUT = 120_000;

let app: TestApp;
let browser: Browser;
let site: string;
const cookies = { admin: '', plain: '' };

setUpBrowserSuite({ users: ['root', 'plain'], timeout: STEP_TIMEOUT }, async (suite) => {
  ({ app, browser } = suite);
  [cookies.admin, cookies.plain] = suite.cookies;
  site = app.url.replace('127.0.0.1', 'localhost');
  await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: 'root' }, { isAdmin: true });
  for (const name of [
    'gone-js',
    'gone-nojs',
    'quiet-js',
    'quiet-nojs',
    'a-very-long-username-of-sixty-characters-to-wrap-somewhere',
  ])
    await app.createUser(name);
});

async function open(who: keyof typeof cookies, js: boolean, options: { width?: number; dark?: boolean } = {}) {
  const context = await browser.newContext({
    javaScriptEnabled: js,
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.dark ? 'dark' : 'light',
  });
  context.setDefaultTimeout(30_000);
  await context.addCookies([
    { name: 'token', value: cookies[who].split('=')[1], url: site, httpOnly: true, sameSite: 'Lax' },
  ]);
  return { context, page: await context.newPage() };
}

async function goToConsole(page: Page, js: boolean): Promise<void> {
  await page.goto(`${site}/files`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
  await page.waitForURL(`${site}/admin`);
  if (js) await waitForHydration(page, 'main form');
}

describe.skipIf(!hasChromium)(`the admin console in Chromium${SKIP_NOTE}`, () => {
  for (const js of [true, false]) {
    const mode = js ? 'with JavaScript' : 'without JavaScript';
    const tag = js ? 'js' : 'nojs';

    it(
      `when an admin searches, sorts, disables and deletes (${mode}), then each step shows in the table and says so`,
      async () => {
        const { context, page } = await open('admin', js);
        try {
          await goToConsole(page, js);
          await page.getByLabel('Search usernames').fill(`quiet-${tag}`);
          await page.getByRole('button', { name: 'Search' }).click();
          await page.getByText(`1 account match “quiet-${tag}”.`).waitFor();
          expect(await page.locator('table.accounts tbody tr').count()).toBe(1);

          await page.locator(`tr[data-username="quiet-${tag}"] summary`).click();
          // With JavaScript the form goes through /trpc in place; without, it is posted to the page.
          const disable = page.getByRole('button', { name: `Disable: quiet-${tag}` });
          const sent = js
            ? page.waitForRequest((request) => request.url().includes('/trpc/admin.setDisabled'))
            : page.waitForRequest(
                (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/admin',
              );
          await Promise.all([sent, disable.click()]);
          await page
            .getByRole('status')
            .filter({ hasText: `quiet-${tag} is disabled.` })
            .waitFor();
          await page.locator(`tr[data-username="quiet-${tag}"] .badge.warning`).waitFor();

          await page.goto(`${site}/admin?sort=username&order=desc`);
          const first = await page.locator('table.accounts tbody tr').first().getAttribute('data-username');
          expect(first).toBe('root');

          await page.goto(`${site}/admin?q=gone-${tag}`);
          if (js) await waitForHydration(page, 'main form');
          await page.locator(`tr[data-username="gone-${tag}"] summary`).click();
          await page.getByRole('link', { name: `Delete gone-${tag}` }).click();
          await page.getByRole('heading', { name: `Delete gone-${tag}?` }).waitFor();
          await page.getByText('with 0 files (0 bytes)').waitFor();
          await page.getByRole('button', { name: `Delete gone-${tag}` }).click();
          await page
            .getByRole('status')
            .filter({ hasText: `gone-${tag} was deleted` })
            .waitFor();
          expect(await app.rows('select id from users where username_key = ?', [`gone-${tag}`])).toEqual([]);
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      `when an admin filters the activity log by who and what (${mode}), then the table shows just those events`,
      async () => {
        const { context, page } = await open('admin', js);
        try {
          await goToConsole(page, js);
          await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Activity log' }).click();
          await page.waitForURL(`${site}/admin/audit`);
          if (js) await waitForHydration(page, 'main form');
          await page.getByLabel('Who').fill('root');
          // The first test disabled quiet-js and quiet-nojs as root.
          await page.getByLabel('What').selectOption('account.disabled');
          await page.getByRole('button', { name: 'Show' }).click();
          await page.waitForURL(/\/admin\/audit\?who=root&action=account\.disabled/);
          await page.locator('table.activity tbody tr').first().waitFor();
          const whats = await page.locator('table.activity tbody td[data-label="What"]').allInnerTexts();
          expect(whats.length).toBeGreaterThan(0);
          for (const what of whats) expect(what).toBe('account.disabled');
          const ons = await page.locator('table.activity tbody td[data-label="On"]').allInnerTexts();
          expect(ons).toContain(`user quiet-${tag}`);
          const whos = await page.locator('table.activity tbody td[data-label="Who"]').allInnerTexts();
          for (const who of whos) expect(who).toBe('root');
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );

    it(
      `when a user who is not an admin opens the console (${mode}), then the header has no Admin link and the page is not found`,
      async () => {
        const { context, page } = await open('plain', js);
        try {
          await page.goto(`${site}/files`);
          expect(
            await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count(),
          ).toBe(0);
          for (const path of ['/admin', '/admin/audit', '/admin/invitations']) {
            const answer = await page.goto(`${site}${path}`);
            expect(answer?.status(), path).toBe(404);
            await page.getByText('Page not found.').waitFor();
          }
        } finally {
          await context.close();
        }
      },
      STEP_TIMEOUT,
    );
  }

  it(
    'when the console is opened at 1280 and 390 px, light and dark, then no page scrolls sideways',
    async () => {
      for (const width of [1280, 390]) {
        for (const dark of [false, true]) {
          const { context, page } = await open('admin', true, { width, dark });
          try {
            for (const [name, path] of [
              ['admin-users', '/admin'],
              ['admin-delete', '/admin/users/plain/delete'],
              ['admin-storage', '/admin/storage'],
              ['admin-settings', '/admin/settings'],
              ['admin-activity', '/admin/audit'],
            ]) {
              await page.goto(`${site}${path}`);
              if (name === 'admin-users') {
                await waitForHydration(page, 'main form');
                await page.locator('tr[data-username="plain"] summary').click();
              }
              await snap(page, `${name}-${dark ? 'dark' : 'light'}-${width}`);
              const sideways = await sidewaysScroll(page);
              expect(sideways.scrolls, `${path} at ${width} px: ${sideways.culprits.join('; ')}`).toBe(false);
            }
          } finally {
            await context.close();
          }
        }
      }
    },
    STEP_TIMEOUT,
  );
});
