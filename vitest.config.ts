import { defineConfig } from 'vitest/config';
import { SERVER_NODE_FLAGS } from './scripts/server-node-flags.mjs';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // A throwaway PostgreSQL cluster and an S3 server for the whole run (tests/helpers/backends.ts).
    globalSetup: ['tests/global-setup.ts'],
    pool: 'forks',
    // Most suites run the app inside the test worker: give it the young generation production
    // runs with (ADR 0007), so memory measured there (client aborts) is the server's own.
    execArgv: SERVER_NODE_FLAGS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only fight over them (and over bcrypt).
    maxWorkers: 2,
    reporters: ['default'],
  },
});
