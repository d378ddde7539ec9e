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
/**
 * The tests that measure the memory (or pause for a collection) of the app running inside the
 * test worker: they run in workers with the server's own Node flags (SERVER_NODE_FLAGS, ADR 0007:
 * its young generation and `gc`), so what they measure is the server's.
 */
const IN_WORKER_SERVER_MEMORY = [
  'tests/hardening/client-abort.test.ts',
  'tests/hardening/page-refused-bodies.test.ts',
  'tests/sharing/collection-archive-many-files.test.ts',
  'tests/unit/zip-archive.test.ts',
];

export default defineConfig({
  test: {
    // A throwaway PostgreSQL cluster and an S3 server for the whole run (tests/helpers/backends.ts).
    globalSetup: ['tests/global-setup.ts'],
    // Every /api/v1 response a test receives is checked against the OpenAPI document, and a test
    // during which console.error is called, or an app it started in the worker logs an error,
    // fails unless it says it expects that.
    // And each file gets the app fixtures anew, so that its `test.override(…)` reaches no other.
    setupFiles: [
      'tests/setup/fresh-fixtures.ts',
      'tests/setup/validate-api-responses.ts',
      'tests/setup/fail-on-unexpected-errors.ts',
    ],
    pool: 'forks',
    // A worker runs file after file of its project in the one module graph it loaded: loading the
    // server's modules, the Remix build and the OpenAPI validator again for each file was close
    // to half of the run's CPU. Each file starts its own apps on fresh data and closes them
    // (ADR 0082). Most workers run with Node's defaults: the server's flags (a 1 MiB young
    // generation) only made them collect garbage more often (ADR 0080).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What a page or a server is polled for (expect.poll) may take seconds on a loaded 2-core
    // machine, where vitest's 1 s default failed tests whose answer was on its way.
    expect: { poll: { timeout: 10_000 } },
    // Two cores: more workers only fight over them (and over bcrypt).
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      // Everything on the embedded default, SQLite + a local folder.
      {
        extends: true,
        test: { name: 'sqlite-disk', include: ['tests/**/*.test.ts'], exclude: IN_WORKER_SERVER_MEMORY },
      },
      // The same suites again with every app on a fresh PostgreSQL database and S3 bucket
      // (tests/helpers/test-backend.ts).
      {
        extends: true,
        test: {
          name: 'postgres-s3',
          include: EVERY_BACKEND,
          exclude: [...DISK_STORE_ONLY, ...IN_WORKER_SERVER_MEMORY],
          env: { TEST_BACKEND: 'postgres-s3' },
        },
      },
      // The memory tests, on each backend, in workers started like the server.
      {
        extends: true,
        test: {
          name: 'sqlite-disk-server-flags',
          include: IN_WORKER_SERVER_MEMORY,
          // A fresh worker for each: what one file left in memory is no other's measure.
          isolate: true,
          execArgv: SERVER_NODE_FLAGS,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres-s3-server-flags',
          include: IN_WORKER_SERVER_MEMORY.filter((file) => !file.startsWith('tests/unit/')),
          isolate: true,
          execArgv: SERVER_NODE_FLAGS,
          env: { TEST_BACKEND: 'postgres-s3' },
        },
      },
    ],
  },
});
