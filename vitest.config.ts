import { defineConfig } from 'vitest/config';
import { SERVER_NODE_FLAGS } from './scripts/server-node-flags.mjs';

/** The suites that must hold on every backend (ADR 0013): the API, sharing and hardening. */
const EVERY_BACKEND = [
  'tests/api/**/*.test.ts',
  'tests/sharing/**/*.test.ts',
  'tests/hardening/**/*.test.ts',
  'tests/webhooks/**/*.test.ts',
];
/** Faults of the disk store itself (a full disk, file modes, what the sweep may delete in UPLOAD_DIR). */
const DISK_STORE_ONLY = [
  'tests/hardening/crash-restart.test.ts',
  'tests/hardening/disk-full.test.ts',
  'tests/hardening/storage-permissions.test.ts',
  'tests/hardening/upload-dir-safety.test.ts',
];

export default defineConfig({
  test: {
    // A throwaway PostgreSQL cluster and an S3 server for the whole run (tests/helpers/backends.ts).
    globalSetup: ['tests/global-setup.ts'],
    // Every /api/v1 response a test receives is checked against the OpenAPI document, and a test
    // during which console.error is called, or an app it started in the worker logs an error,
    // fails unless it says it expects that.
    setupFiles: ['tests/setup/validate-api-responses.ts', 'tests/setup/fail-on-unexpected-errors.ts'],
    pool: 'forks',
    // Most suites run the app inside the test worker: give it the young generation production
    // runs with (ADR 0007), so memory measured there (client aborts) is the server's own.
    execArgv: SERVER_NODE_FLAGS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only fight over them (and over bcrypt).
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      // Everything on the embedded default, SQLite + a local folder.
      { extends: true, test: { name: 'sqlite-disk', include: ['tests/**/*.test.ts'] } },
      // The same suites again with every app on a fresh PostgreSQL database and S3 bucket
      // (tests/helpers/test-backend.ts).
      {
        extends: true,
        test: {
          name: 'postgres-s3',
          include: EVERY_BACKEND,
          exclude: DISK_STORE_ONLY,
          env: { TEST_BACKEND: 'postgres-s3' },
        },
      },
    ],
  },
});
