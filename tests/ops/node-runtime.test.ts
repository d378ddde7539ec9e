// One Node.js line everywhere: the tests, `npm start`, the CLI and the container run the same
// major version (ADR 0032). On a machine whose own Node is older, `npm ci` brings the pinned
// runtime as the `node` dev dependency, and npm puts it first on PATH for every `npm run`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run } from './support';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const majorOf = (version: string) => Number(/(\d+)/.exec(version)?.[1]);

describe('the Node.js runtime', () => {
  it('when the tests run, then they run on Node 22 or later', () => {
    expect(majorOf(process.versions.node)).toBeGreaterThanOrEqual(22);
  });

  it('when an npm script runs, then it runs on the pinned runtime whatever the machine has', async () => {
    const pinned = packageJson.devDependencies.node;
    const result = await run('npm', ['exec', '--offline', '--', 'node', '--version'], { cwd: ROOT });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`v${pinned}`);
  });

  it('when the project names its Node version, then engines, .nvmrc, the pinned runtime and the container image agree', () => {
    const pinned = packageJson.devDependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(packageJson.engines.node).toBe(`>=${majorOf(pinned)}`);
    expect(read('.nvmrc').trim()).toBe(String(majorOf(pinned)));
    const image = /ARG NODE_IMAGE=node:(\S+)/.exec(read('Dockerfile'))?.[1] ?? '';
    expect(image).toMatch(new RegExp(`^${pinned.replaceAll('.', '\\.')}-`));
  });
});
