// Small helpers for the browser tests of the pages (tests/e2e).
import type { Page } from 'playwright-core';
import { screenshotPath } from './browser';

/**
 * Waits until React has hydrated the page (the main form or main element carries React's
 * props), so a click runs the page's JavaScript instead of the plain HTML behaviour.
 */
export async function waitForHydration(page: Page, selector = 'main'): Promise<void> {
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      return !!el && Object.keys(el).some((key) => key.startsWith('__reactProps$'));
    },
    selector,
    { timeout: 30_000 },
  );
}

/** A full-page screenshot under test-output/screenshots/<name>.png. */
export async function snap(page: Page, name: string): Promise<string> {
  const file = screenshotPath(name);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Answers the page's own question before a delete (app/components/confirm-dialog.tsx) with its
 * `button` ("Delete", "Cancel"…), and returns the question it asked.
 */
export async function answerDialog(page: Page, button: string): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const question = (await dialog.locator('.confirm-question').textContent()) ?? '';
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  return question;
}
