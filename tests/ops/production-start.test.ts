// The container's start path, without Docker: the same files the Dockerfile's runtime stage
// copies (package.json, package-lock.json, dist, build, public, node_modules and
// scripts/start-server.sh), the same `npm prune --omit=dev`, then its CMD,
// `sh scripts/start-server.sh dist/server/index.js`, with no dev dependency on disk.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, tempDir } from '../helpers/app';
import { exitWithin, killIfRunning, ROOT, run, startServer, type ServerProcess } from './support';

/** What the runtime stage of the Dockerfile copies from the build stage. */
const SHIPPED = [
  'package.json',
  'package-lock.json',
  'dist',
  'build',
  'public',
  'node_modules',
  'scripts/start-server.sh',
];

let appDir: string;
let server: ServerProcess | undefined;
let pruned: { code: number | null; stderr: string };

beforeAll(async () => {
  for (const entry of ['dist/server/index.js', 'dist/cli/register-user.js', 'build/index.js', 'public/build']) {
    if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  }
  // A copied link would still point at this checkout's packages, and the prune below would
  // remove their dev tools: refuse rather than prune a tree this test does not own.
  if (fs.lstatSync(path.join(ROOT, 'node_modules')).isSymbolicLink()) {
    throw new Error('node_modules is a link: run this test in a checkout with its own node_modules');
  }
  appDir = tempDir('fs-prod-');
  const copy = await run('cp', ['-a', '--parents', ...SHIPPED, appDir], { cwd: ROOT });
  if (copy.code !== 0) throw new Error(`copy failed: ${copy.stderr}`);
  // The Dockerfile's `npm prune --omit=dev`, with NODE_ENV=production as in the image.
  // Offline: the copy holds every package, so pruning needs nothing from the registry (npm run
  // by the project's own Node reads no machine-wide npmrc, and so none of its registry settings).
  pruned = await run('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund', '--offline'], {
    cwd: appDir,
    env: { NODE_ENV: 'production' },
  });
}, 180_000);

afterAll(() => {
  killIfRunning(server);
  if (appDir) fs.rmSync(appDir, { recursive: true, force: true });
});

describe('production start without dev dependencies', () => {
  it('when the copy is pruned with npm prune --omit=dev, then the dev tools are gone and the runtime dependencies stay', async () => {
    expect(pruned.code, pruned.stderr).toBe(0);
    // (typescript itself stays: @trpc/server declares it as a peer dependency, so npm keeps it.)
    for (const devOnly of ['vitest', '@remix-run/dev', 'tsx', 'esbuild', 'playwright-core']) {
      expect(fs.existsSync(path.join(appDir, 'node_modules', devOnly)), `${devOnly} should be pruned`).toBe(false);
    }
    for (const runtime of ['express', '@remix-run/node', '@mikro-orm/sqlite', 'sqlite3', 'busboy']) {
      expect(fs.existsSync(path.join(appDir, 'node_modules', runtime)), `${runtime} should stay`).toBe(true);
    }
    // The project itself was not touched.
    expect(fs.existsSync(path.join(ROOT, 'node_modules', 'vitest'))).toBe(true);
  }, 30_000);

  it('when the container’s command starts the server from the pruned copy, then /healthz is ok, / is a page, source is coloured, and SIGTERM ends it with 0', async () => {
    expect(pruned.code, pruned.stderr).toBe(0);
    const dataDir = tempDir('fs-prod-data-');
    try {
      server = await startServer({
        cwd: appDir,
        env: { NODE_ENV: 'production', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      });

      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });

      const home = await fetch(`${server.url}/`);
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await home.text()).toMatch(/<html/i);

      // The browser assets are served from the copied public/build.
      const assets = fs.readdirSync(path.join(appDir, 'public/build')).filter((name) => name.endsWith('.js'));
      expect(assets.length).toBeGreaterThan(0);
      const asset = await fetch(`${server.url}/build/${assets[0]}`);
      expect(asset.status).toBe(200);

      // Migrations ran at start on the fresh DATA_DIR.
      expect(fs.existsSync(path.join(dataDir, 'app.db'))).toBe(true);

      // The whole path through the runtime dependencies: CLI, login, streamed upload, raw file.
      const created = await run(process.execPath, ['dist/cli/register-user.js', 'alice', '--password-stdin'], {
        cwd: appDir,
        env: { DATA_DIR: dataDir },
        input: 'a long passphrase\n',
      });
      expect(created.code, created.stderr).toBe(0);
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'alice', password: 'a long passphrase' }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.getSetCookie()[0].split(';')[0];
      const uploaded = await fetch(`${server.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie },
        body: fileForm('shipped and working', 'hello.txt', 'text/plain'),
      });
      expect(uploaded.status).toBe(201);
      const { file } = (await uploaded.json()) as { file: { id: string } };
      const raw = await fetch(`${server.url}/f/${file.id}/raw`);
      expect(await raw.text()).toBe('shipped and working');
      // Source is coloured by the highlighter's worker thread, a file of its own in dist/ (ADR 0054).
      const source = await fetch(`${server.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie },
        body: fileForm('export const shipped: boolean = true;\n', 'shipped.ts', 'video/mp2t'),
      });
      const { file: sourceFile } = (await source.json()) as { file: { id: string } };
      const page = await (await fetch(`${server.url}/f/${sourceFile.id}`)).text();
      expect(page).toContain('<span class="hljs-keyword">export</span>');

      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10_000)).toBe(0);
    } finally {
      killIfRunning(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('when the CLI runs from the pruned copy, then it creates a user with node alone', async () => {
    const dataDir = tempDir('fs-prod-cli-');
    try {
      const result = await run(process.execPath, ['dist/cli/register-user.js', 'alice', '--password-stdin'], {
        cwd: appDir,
        env: { NODE_ENV: 'production', DATA_DIR: dataDir, SESSION_SECRET: 'x'.repeat(40) },
        input: 'a long passphrase\n',
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Created user alice \(id \S+\)\n$/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
