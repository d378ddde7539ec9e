// Run by tests/setup/fresh-fixtures.test.ts: a file of the sharing suites that sets the app's options.
import { expect } from '../helpers/fixtures';
import { test } from '../sharing/support';

test.override('appOptions', { expirySweepEveryMs: 100 });

test('when this file overrides appOptions, then it has its own appOptions and the default appEnv', ({
  appEnv,
  appOptions,
}) => {
  expect(appEnv).toEqual({});
  expect(appOptions).toEqual({ expirySweepEveryMs: 100 });
});
