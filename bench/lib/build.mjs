// The build the bench measures: made again when the sources are newer than dist/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { log } from './log.mjs';
import { ROOT, S } from './settings.mjs';

function newestMtime(target) {
  let newest = 0;
  const stack = [target];
  while (stack.length) {
    const current = stack.pop();
    let stats;
    try {
      stats = fs.statSync(current);
    } catch {
      continue;
    }
    if (stats.isDirectory()) {
      for (const name of fs.readdirSync(current)) if (name !== 'node_modules') stack.push(path.join(current, name));
    } else newest = Math.max(newest, stats.mtimeMs);
  }
  return newest;
}

export function buildIfNeeded() {
  const outputs = ['dist/server/index.js', 'dist/cli/register-user.js', 'build/index.js'].map((p) =>
    path.join(ROOT, p),
  );
  const oldestOutput = Math.min(...outputs.map((p) => (fs.existsSync(p) ? fs.statSync(p).mtimeMs : 0)));
  const newestSource = Math.max(
    ...['server', 'app', 'cli', 'remix.config.js', 'package.json', 'scripts/build-server.mjs'].map((p) =>
      newestMtime(path.join(ROOT, p)),
    ),
  );
  if (oldestOutput >= newestSource) return false;
  if (S.skipBuild) {
    log('sources are newer than dist/ but BENCH_SKIP_BUILD=1: measuring the existing build');
    return false;
  }
  log('building (npm run build)…');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', process.stderr, process.stderr] });
  if (result.status !== 0) throw new Error('npm run build failed');
  return true;
}
