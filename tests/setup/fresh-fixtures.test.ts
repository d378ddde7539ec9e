// The app fixtures stay with the file that overrides them, though a worker runs file after file
// in one module graph (vitest.config.ts, isolate: false): tests/setup/fresh-fixtures.ts builds
// them anew before each file.
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/app';
import { runCommand } from '../helpers/process';

const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

describe('the app fixtures of a worker that runs several files', () => {
  test('when one file overrides appEnv and another appOptions, then each file, and a third that overrides nothing, sees only its own', async () => {
    const run = await runCommand(
      process.execPath,
      [VITEST, 'run', '--config', 'tests/setup/fixture-overrides.config.ts', '--no-color'],
      { env: { CI: '' }, timeoutMs: 60_000 },
    );
    expect(run.stdout + run.stderr).toMatch(/Tests\s+3 passed \(3\)/);
    expect(run.code).toBe(0);
  }, 90_000);
});
