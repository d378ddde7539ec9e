// Builds the pages with Remix's classic compiler, as `remix build` does, without loading the
// `remix` command line. That command loads its Vite plugin at start for every command, and the
// plugin loads Vite's deprecated CommonJS API, which printed "The CJS build of Vite's Node API
// is deprecated" on every build although this app never uses Vite (ADR 0031).
import fs from 'node:fs';
import { createRequire } from 'node:module';

// The compiler's own modules (@remix-run/dev has no "exports" map, so they are reachable; they
// are what its `build` command calls). CommonJS modules, hence require.
const require = createRequire(import.meta.url);
const { readConfig } = require('@remix-run/dev/dist/config.js');
const { create } = require('@remix-run/dev/dist/compiler/compiler.js');
const { createFileWatchCache } = require('@remix-run/dev/dist/compiler/fileWatchCache.js');
const { logThrown } = require('@remix-run/dev/dist/compiler/utils/log.js');
const { logger } = require('@remix-run/dev/dist/tux/logger.js');

// What `npm start` and the container serve: always the production build (the development mode
// of `remix build` is for its dev server, which this app does not use).
const mode = 'production';

const started = Date.now();
logger.info(`building... (NODE_ENV=${mode})`);
const config = await readConfig(process.cwd());
// As `remix build`: no asset of an earlier build is left behind.
fs.rmSync(config.assetsBuildDirectory, { recursive: true, force: true });
const compiler = await create({
  config,
  options: { mode, sourcemap: false },
  fileWatchCache: createFileWatchCache(),
  logger,
});
try {
  await compiler.compile();
} catch (thrown) {
  logThrown(thrown);
  process.exit(1);
}
// Its esbuild contexts would keep the process alive (the command line ends with process.exit).
await compiler.dispose();
logger.info(`built (${Date.now() - started} ms)`);
