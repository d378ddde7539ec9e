// Run by tests/setup/fresh-fixtures.test.ts: a file of the sharing suites that overrides nothing.
import { expect } from '../helpers/fixtures';
import { test } from '../sharing/support';

test('when this file overrides nothing, then it has the default appEnv and appOptions', ({ appEnv, appOptions }) => {
  expect(appEnv).toEqual({});
  expect(appOptions).toEqual({});
});
