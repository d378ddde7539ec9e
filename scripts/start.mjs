// `npm start`: builds when the build is missing or older than the sources, then serves in this
// process, which package.json starts through scripts/start-server.sh (the node flags, ADR 0074).
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const outputs = ['build/index.js', 'dist/server/index.js', 'dist/server/highlight-worker.js', 'public/build'];
// Everything `npm run build` reads: scripts/build-remix.mjs (app, the server code it imports,
// remix.config.js, tsconfig.json's paths), scripts/build-server.mjs (server, cli), and the
// dependencies bundled into the browser build (package.json, package-lock.json).
const sources = [
  'app',
  'server',
  'cli',
  'remix.config.js',
  'tsconfig.json',
  'scripts/build-remix.mjs',
  'scripts/build-server.mjs',
  'package.json',
  'package-lock.json',
];

function newestMtime(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(entry)
    .reduce((newest, name) => Math.max(newest, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

const builtAt = Math.min(...outputs.map((output) => (fs.existsSync(output) ? fs.statSync(output).mtimeMs : 0)));
const changedAt = Math.max(...sources.map(newestMtime));
if (builtAt === 0 || changedAt > builtAt) {
  console.error('Building (the build is missing or older than the sources)…');
  execSync('npm run build', { stdio: 'inherit' });
}
await import('../dist/server/index.js');
