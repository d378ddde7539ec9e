// `npm test` on a fresh machine runs every test or says what it lacks (ADR 0070): its first step
// checks for Debian's Chromium, PostgreSQL and unzip, installs them as root with apt, and
// otherwise stops with one line naming the command that brings them.
import { describe, expect, it } from 'vitest';
import { ROOT, run } from './support';

const SCRIPT = 'scripts/test-prerequisites.sh';
/** `nobody`: a user who may not install packages. */
const asNobody = (env: Record<string, string>) =>
  run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'bash', SCRIPT], {
    cwd: ROOT,
    env,
  });

describe('what npm test needs from the machine', () => {
  it('when everything the tests need is installed, then its first step says nothing and lets the run go on', async () => {
    const result = await asNobody({});
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('when the browser is missing and nobody may install it, then one line names the command and the run stops', async () => {
    const result = await asNobody({ CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'npm test needs chromium: run `sudo apt-get install -y --no-install-recommends chromium`, then npm test again',
    ]);
  });
});
