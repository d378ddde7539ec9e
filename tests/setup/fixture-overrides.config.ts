// The run of tests/setup/fresh-fixtures.test.ts: three small files in one worker that keeps its
// modules (isolate: false), which collects all three before it runs any, so an override one of
// them makes is still there when the others' tests read their fixtures.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/setup/fixture-overrides-*.check.ts'],
    setupFiles: ['tests/setup/fresh-fixtures.ts'],
    pool: 'forks',
    isolate: false,
    maxWorkers: 1,
    reporters: ['default'],
  },
});
