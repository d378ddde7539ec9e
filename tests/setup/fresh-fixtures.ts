// Before each test file: the app fixtures anew (tests/helpers/fixtures.ts), so that a file's
// `test.override(…)` reaches no file run after it in the same worker (vitest.config.ts, isolate:
// false). Through a global rather than an import: a worker whose files never asked for the app
// fixtures has none to renew, and loads none of the app for them.
const FRESH_FIXTURES = Symbol.for('filesharing.tests.freshFixtures');

(globalThis as typeof globalThis & { [FRESH_FIXTURES]?: () => void })[FRESH_FIXTURES]?.();
