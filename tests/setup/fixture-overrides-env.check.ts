// Run by tests/setup/fresh-fixtures.test.ts: a file that sets the app's environment.
import { expect, test } from '../helpers/fixtures';

test.override('appEnv', { MAX_UPLOAD_BYTES: '1024' });

test('when this file overrides appEnv, then it has its own appEnv and the default appOptions', ({
  appEnv,
  appOptions,
}) => {
  expect(appEnv).toEqual({ MAX_UPLOAD_BYTES: '1024' });
  expect(appOptions).toEqual({});
});
