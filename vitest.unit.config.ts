import { defineConfig } from 'vitest/config';
import { SERVER_NODE_FLAGS } from './scripts/server-node-flags.mjs';
import everything from './vitest.config.ts';

/**
 * The fast tier (`npm run test:unit`): the tests that need no PostgreSQL, no S3 server, no
 * browser and no server process, so no global set-up starts the backends. Same setup files and
 * pool as the full run (`npm test`), which still runs these too.
 */
const shared = everything.test;
if (!shared) throw new Error('vitest.config.ts has no test settings');

export default defineConfig({
  test: {
    name: 'unit',
    include: [
      'tests/unit/**/*.test.ts',
      'tests/setup/**/*.test.ts',
      // The disk-only store pieces (the other storage suites also run against S3).
      'tests/storage/part-assembler.test.ts',
      'tests/storage/small-content-reads.test.ts',
      // Checks of the repository's own files.
      'tests/ops/env-example.test.ts',
      'tests/ops/product-words.test.ts',
    ],
    exclude: [
      // Starts the built server and CLI as processes, dozens of times: a minute and more on its own.
      'tests/unit/config.test.ts',
      // Streams a 4 GiB entry and an archive of 70,000 entries: most of a minute on its own.
      'tests/unit/zip-zip64.test.ts',
    ],
    setupFiles: shared.setupFiles,
    pool: shared.pool,
    // These files keep no state between them: one module graph per worker instead of one per file
    // (loading the server's modules and the OpenAPI validator is most of this tier's time).
    isolate: false,
    // The server's Node flags, for the one file here that measures memory in the worker
    // (tests/unit/zip-archive.test.ts; the full run gives them to such files only).
    execArgv: SERVER_NODE_FLAGS,
    testTimeout: shared.testTimeout,
    hookTimeout: shared.hookTimeout,
    maxWorkers: shared.maxWorkers,
    reporters: shared.reporters,
  },
});
