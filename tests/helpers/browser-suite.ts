// The set-up every browser test file shares (tests/e2e/*-browser.test.ts): before its tests the
// app and Chromium start together and the file's users register and log in; after its tests both
// close. Without Chromium nothing starts (the file's tests skip, see browser.ts).
//
//   let app: TestApp;
//   let browser: Browser;
//   let cookie: string;
//   setUpBrowserSuite({ users: ['hana'] }, (suite) => {
//     ({ app, browser } = suite);
//     [cookie] = suite.cookies;
//   });
//
// `ready` keeps what the file's tests use and does the file's own set-up (uploads, requests);
// it runs inside the same beforeAll, with its timeout. One browser serves every test of the file:
// each test opens a context of its own.
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { startApp, type StartOptions, type TestApp } from './app';
import { hasChromium, launchBrowser } from './browser';

export interface BrowserSuite<App extends TestApp = TestApp> {
  app: App;
  browser: Browser;
  /** The session cookie (`token=…`) of each of `users`, in their order. */
  cookies: string[];
}

export interface BrowserSuiteSetUp<App extends TestApp> {
  /** Starts the app; by default `startApp(env, options)`. */
  start?: () => Promise<App>;
  env?: Record<string, string>;
  options?: StartOptions;
  /** Registered and logged in, in this order, once the app runs. */
  users?: string[];
  /** Of the beforeAll, `ready` included (default 60 s). */
  timeout?: number;
}

export function setUpBrowserSuite<App extends TestApp = TestApp>(
  setUp: BrowserSuiteSetUp<App>,
  ready: (suite: BrowserSuite<App>) => void | Promise<void>,
): void {
  let suite: BrowserSuite<App> | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    const start = setUp.start ?? (() => startApp(setUp.env, setUp.options) as Promise<App>);
    const [app, browser] = await Promise.all([start(), launchBrowser()]);
    suite = { app, browser, cookies: [] };
    for (const username of setUp.users ?? []) {
      await app.createUser(username);
      suite.cookies.push(await app.login(username));
    }
    await ready(suite);
  }, setUp.timeout ?? 60_000);
  afterAll(async () => {
    await suite?.browser.close();
    await suite?.app.close();
  });
}

/** Chromium alone, for a file whose tests start their own apps: launched before them, closed after. */
export function setUpBrowser(ready: (browser: Browser) => void): void {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!hasChromium) return;
    browser = await launchBrowser();
    ready(browser);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
}
