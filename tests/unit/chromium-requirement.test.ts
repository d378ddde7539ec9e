// When the browser tests run, skip or fail, from the CI variable and whether Chromium is there.
import { describe, expect, it } from 'vitest';
import { decideBrowserTests } from '../helpers/chromium-requirement';

const chromiumPath = '/usr/bin/chromium';

describe('the browser tests', () => {
  it.each([undefined, '', 'true', '1', 'false'])('when Chromium is there and CI is %j, then they run', (ci) => {
    expect(decideBrowserTests({ ci, chromiumPath, chromiumPresent: true })).toEqual({ outcome: 'run' });
  });

  it.each(['true', '1', 'yes', 'TRUE'])(
    'when CI is %j and Chromium is missing, then they fail saying Chromium is required in CI and how to install it',
    (ci) => {
      const decision = decideBrowserTests({ ci, chromiumPath, chromiumPresent: false });

      expect(decision.outcome).toBe('fail');
      expect(decision.outcome === 'fail' && decision.message).toMatch(
        /^Chromium is required in CI: apt-get install chromium/,
      );
    },
  );

  it.each([undefined, '', 'false', '0'])(
    'when CI is %j and Chromium is missing, then they skip, naming where Chromium was looked for',
    (ci) => {
      const decision = decideBrowserTests({ ci, chromiumPath: '/opt/nowhere/chromium', chromiumPresent: false });

      expect(decision.outcome).toBe('skip');
      expect(decision.outcome === 'skip' && decision.reason).toContain('no Chromium at /opt/nowhere/chromium');
    },
  );
});
