// Debian's Chromium driven by playwright-core (never a downloaded browser). Tests that need
// it skip with a visible reason when it is not installed, except in CI, where every file that
// imports this one fails instead (chromium-requirement.ts); .ci/run installs it.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './app';
import { decideBrowserTests } from './chromium-requirement';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const decision = decideBrowserTests({
  ci: process.env.CI,
  chromiumPath: CHROMIUM_PATH,
  chromiumPresent: fs.existsSync(CHROMIUM_PATH),
});
if (decision.outcome === 'fail') throw new Error(decision.message);
export const hasChromium = decision.outcome === 'run';
/** Added to a browser suite's name when it skips: why, and what to install (empty when it runs). */
export const SKIP_NOTE = decision.outcome === 'skip' ? ` — ${decision.reason}` : '';
// Once per test file that drives the browser (vitest names the file above the line).
if (decision.outcome === 'skip') console.warn(`browser tests ${decision.reason}`);
const SCREENSHOT_DIR = path.join(ROOT, 'test-output', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  // playwright gives every launch a fresh temporary profile (so no --user-data-dir is needed).
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
