// Compiles the server and the CLI to plain JavaScript in dist/ (dependencies stay external),
// so production runs with `node` alone and no dev dependency (Dockerfile CMD).
import path from 'node:path';
import { build } from 'esbuild';

/** The programs: each dist/<name>.js turns on Node's compile cache, then loads its source. */
const programs = {
  'server/index': 'server/index.ts',
  'cli/register-user': 'cli/register-user.ts',
  'cli/move-install': 'cli/move-install.ts',
  'cli/tokens': 'cli/tokens.ts',
  'cli/users': 'cli/users.ts',
};

/**
 * Each program's entry: Node's compile cache on (under the system's temporary folder), then
 * the program itself with import(), so that every module it loads is compiled through the
 * cache. An entry's static imports would be compiled before its first line runs. Most of a
 * command's start is compiling MikroORM, knex and the rest: with the cache, every start after
 * the first compiles nothing again (ADR 0085). Where the folder cannot be written, Node runs
 * without the cache.
 */
const compileCacheEntries = {
  name: 'compile-cache-entries',
  setup(build) {
    build.onResolve({ filter: /^program:/ }, (args) => ({
      path: args.path.slice('program:'.length),
      namespace: 'program',
    }));
    build.onLoad({ filter: /.*/, namespace: 'program' }, (args) => ({
      contents: [
        "import { enableCompileCache } from 'node:module';",
        'enableCompileCache?.();',
        `await import(${JSON.stringify(`./${args.path}`)});`,
      ].join('\n'),
      resolveDir: path.resolve('.'),
      loader: 'js',
    }));
  },
};

await build({
  entryPoints: {
    ...Object.fromEntries(Object.entries(programs).map(([name, source]) => [name, `program:${source}`])),
    // The highlighter's worker thread loads it by this path (server/highlight/highlighter.ts): every
    // other file here sits one folder below dist/ too, and reaches it as ../server/highlight-worker.js.
    'server/highlight-worker': 'server/highlight/highlight-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // Code loaded with import() stays out of the start: the S3 store and each database driver
  // (with their dependencies) load only when configured.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [compileCacheEntries],
});
