// Compiles the server and the CLI to plain JavaScript in dist/ (dependencies stay external),
// so production runs with `node` alone and no dev dependency (Dockerfile CMD).
import { build } from 'esbuild';

await build({
  entryPoints: {
    'server/index': 'server/index.ts',
    // The highlighter's worker thread loads it by this path (server/highlight/highlighter.ts): every
    // other file here sits one folder below dist/ too, and reaches it as ../server/highlight-worker.js.
    'server/highlight-worker': 'server/highlight/highlight-worker.ts',
    'cli/register-user': 'cli/register-user.ts',
    'cli/move-install': 'cli/move-install.ts',
    'cli/tokens': 'cli/tokens.ts',
    'cli/users': 'cli/users.ts',
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
});
