// `npm start` builds first when the build is missing or stale: stale
// means older than any file `npm run build` reads. The real scripts/start.mjs runs in a small
// project whose build script only leaves a mark and whose server only says it was started.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app';
import { ROOT, run } from './support';

/** What `npm run build` (remix build, then scripts/build-server.mjs) reads, one file or folder of each. */
const SOURCES: Record<string, string> = {
  'app/root.tsx': '',
  'server/index.ts': '',
  'cli/register-user.ts': '',
  'remix.config.js': 'export default {};\n',
  'tsconfig.json': '{}\n',
  'scripts/build-remix.mjs': '',
  'scripts/build-server.mjs': '',
  'package-lock.json': '{}\n',
  'package.json': `${JSON.stringify({ private: true, scripts: { build: `node -e "require('node:fs').writeFileSync('rebuilt', '')"` } })}\n`,
};
const OUTPUTS = [
  'build/index.js',
  'dist/server/index.js',
  'dist/server/highlight-worker.js',
  'public/build/entry.client.js',
];

/** A project built a minute after its sources were last changed. */
function builtProject(): string {
  const dir = tempDir('fs-npm-start-');
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  for (const [file, text] of Object.entries(SOURCES)) write(file, text);
  for (const file of OUTPUTS) write(file, '');
  write('dist/server/index.js', "console.log('served');\n");
  fs.copyFileSync(path.join(ROOT, 'scripts/start.mjs'), path.join(dir, 'scripts/start.mjs'));

  const setTime = (entry: string, secondsAgo: number) => {
    const time = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(path.join(dir, entry), time, time);
  };
  // Folders too: start.mjs counts a folder's own time (a file removed from it).
  for (const file of Object.keys(SOURCES)) for (const entry of [file, path.dirname(file)]) setTime(entry, 120);
  for (const file of OUTPUTS) for (const entry of [file, path.dirname(file)]) setTime(entry, 60);
  return dir;
}

function start(dir: string) {
  return run(process.execPath, ['scripts/start.mjs'], { cwd: dir });
}

describe('npm start (scripts/start.mjs)', () => {
  it('when no source changed since the build, then it serves without building', async () => {
    const dir = builtProject();

    const result = await start(dir);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('served');
    expect(result.stderr).not.toContain('Building');
    expect(fs.existsSync(path.join(dir, 'rebuilt'))).toBe(false);
  });

  it('when the build lacks the highlighter’s worker, then it builds before serving', async () => {
    const dir = builtProject();
    fs.rmSync(path.join(dir, 'dist/server/highlight-worker.js'));

    const result = await start(dir);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Building (the build is missing or older than the sources)');
    expect(fs.existsSync(path.join(dir, 'rebuilt'))).toBe(true);
  });

  it.each(Object.keys(SOURCES))('when %s changed after the build, then it builds before serving', async (file) => {
    const dir = builtProject();
    const now = new Date();
    fs.utimesSync(path.join(dir, file), now, now);

    const result = await start(dir);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Building (the build is missing or older than the sources)');
    expect(fs.existsSync(path.join(dir, 'rebuilt'))).toBe(true);
    expect(result.stdout).toContain('served');
  });
});
