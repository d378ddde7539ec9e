// Vitest fixtures for the tests that talk to a running app (vitest's `test.extend`).
//
//   import { describe, expect, test } from '../helpers/fixtures';
//
//   test('when alice lists her files, then …', async ({ app, alice, bob }) => {
//     const res = await alice.fetch('/api/v1/files');
//   });
//
// - `app`: the real app in this process on port 0 (tests/helpers/app.ts, startApp), on the run's
//   backend; started once per test file, the first time a test (or a `test.beforeAll`) asks for
//   it, and closed after the file's last test.
// - `alice`, `bob`: users registered on that app, each logged in once per file (a TestUser: their
//   session cookie, and fetch/upload/createToken calls made as them).
// - `appEnv`, `appOptions`: what `app` is started with (none by default). A file that needs a
//   setting of its own overrides them: `test.override('appEnv', { MAX_UPLOAD_SIZE: '1024' })`.
// A file needing another user adds one the same way: `test.extend('carol', { scope: 'file' },
// ({ app }) => registeredUser(app, 'carol'))`. A file's set-up that needs them (uploads every test
// reads) goes in `test.beforeAll(async ({ app, alice }) => …)`.
import { test as base } from 'vitest';
import type { FileDto } from '../../server/services/files';
import { DEFAULT_PASSWORD, fileForm, startApp, type StartOptions, type TestApp } from './app';

export { describe, expect } from 'vitest';

const FRESH_FIXTURES = Symbol.for('filesharing.tests.freshFixtures');
type FreshFixturesHook = typeof globalThis & { [FRESH_FIXTURES]?: () => void };

/** A registered user, logged in. */
export interface TestUser {
  username: string;
  id: string;
  password: string;
  /** `token=…`: the value of a Cookie header that carries their session. */
  cookie: string;
  /** fetch to the app (`path` from its root, e.g. `/api/v1/files`) with their session cookie. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Uploads one file through POST /api/v1/files (`fields` go before the file part); throws unless 201. */
  upload(
    content: string | Uint8Array,
    filename: string,
    type?: string,
    fields?: Record<string, string>,
  ): Promise<{ file: FileDto; url: string }>;
  /** Creates an API token for them (POST /api/v1/tokens) and returns it, for `authorization: Bearer …`. */
  createToken(name?: string): Promise<string>;
}

/** Registers `username` on `app` (app.createUser) and logs them in over HTTP. */
export async function registeredUser(app: TestApp, username: string, password = DEFAULT_PASSWORD): Promise<TestUser> {
  const id = await app.createUser(username, password);
  const cookie = await app.login(username, password);
  const asUser = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('cookie')) headers.set('cookie', cookie);
    return fetch(`${app.url}${path}`, { ...init, headers });
  };
  return {
    username,
    id,
    password,
    cookie,
    fetch: asUser,
    async upload(content, filename, type = 'application/octet-stream', fields = {}) {
      const res = await asUser('/api/v1/files', {
        method: 'POST',
        body: fileForm(content, filename, type, 'file', fields),
      });
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { file: FileDto; url: string };
    },
    async createToken(name = 'script') {
      const res = await asUser('/api/v1/tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (res.status !== 201) throw new Error(`token not created: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
  };
}

function appTest() {
  return base
    .extend('appEnv', { scope: 'file' }, {} as Record<string, string>)
    .extend('appOptions', { scope: 'file' }, {} as StartOptions)
    .extend('app', { scope: 'file' }, async ({ appEnv, appOptions }, { onCleanup }) => {
      const app = await startApp(appEnv, appOptions);
      onCleanup(() => app.close());
      return app;
    })
    .extend('alice', { scope: 'file' }, ({ app }) => registeredUser(app, 'alice'))
    .extend('bob', { scope: 'file' }, ({ app }) => registeredUser(app, 'bob'));
}

/**
 * A new `test` for each test file. A file's top-level `test.override(…)` changes the very object
 * it is called on; where a worker runs file after file in one module graph (vitest.config.ts,
 * `isolate: false`) one shared object would carry a file's settings (WEBHOOK_ALLOW_PRIVATE, a
 * TestClock) into the files after it. freshFixtures() builds it again before each file.
 */
export let test = appTest();

/** What freshFixtures() builds again after `test`: the `test` of each module that extends it. */
const builtOnTest: Array<() => void> = [];

/** For a module whose own `test` extends this one (tests/sharing/support.ts): builds it again for each file too. */
export function rebuildForEachFile(rebuild: () => void): void {
  builtOnTest.push(rebuild);
}

/** Gives the next test file a `test` (and tests built on it) that no other file has overridden. */
function freshFixtures(): void {
  test = appTest();
  for (const rebuild of builtOnTest) rebuild();
}

// Found there by tests/setup/fresh-fixtures.ts, which runs before each file: a worker whose files
// never loaded this module has nothing to renew, and loads none of the app for it.
(globalThis as FreshFixturesHook)[FRESH_FIXTURES] = freshFixtures;
