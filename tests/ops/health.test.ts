// GET /healthz: 200 {"status":"ok"} when the database answers and the upload
// directory takes writes; 503 {"status":"error",…} otherwise. Public, and never cached.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, tempDir, TEST_SECRET, type TestApp } from '../helpers/app';
import { exitWithin, killIfRunning, startServer } from './support';

let app: TestApp | undefined;

afterEach(async () => {
  await app?.close().catch(() => undefined);
  app = undefined;
});

const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('GET /healthz', () => {
  it('when the database answers and the upload dir is writable, then it answers 200 {"status":"ok"} without a session', async () => {
    app = await startApp();
    const res = await fetch(`${app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
    // The write probe leaves nothing behind.
    expect(await app.incompleteFiles()).toEqual([]);
  });

  it.skipIf(runningAsRoot)(
    'when the upload dir is read-only (chmod 0500), then it answers 503 {"status":"error"} (skipped as root: chmod does not stop root from writing)',
    async () => {
      app = await startApp();
      const incomplete = path.join(app.config.uploadDir, '.incomplete');
      fs.chmodSync(incomplete, 0o500);
      try {
        const res = await fetch(`${app.url}/healthz`);
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ status: 'error', problems: ['upload directory not writable'] });
      } finally {
        fs.chmodSync(incomplete, 0o700);
      }
    },
  );

  it('when the upload dir can no longer take a file (its .incomplete folder is now a plain file), then it answers 503 {"status":"error"}, and 200 again once repaired', async () => {
    app = await startApp();
    const incomplete = path.join(app.config.uploadDir, '.incomplete');
    fs.rmSync(incomplete, { recursive: true });
    fs.writeFileSync(incomplete, 'not a folder');

    const broken = await fetch(`${app.url}/healthz`);
    expect(broken.status).toBe(503);
    expect(broken.headers.get('cache-control')).toBe('no-store');
    expect(await broken.json()).toEqual({ status: 'error', problems: ['upload directory not writable'] });

    fs.rmSync(incomplete);
    fs.mkdirSync(incomplete);
    const repaired = await fetch(`${app.url}/healthz`);
    expect(repaired.status).toBe(200);
    expect(await repaired.json()).toEqual({ status: 'ok' });
  });

  it('when the database is closed, then it answers 503 {"status":"error"} naming the database', async () => {
    app = await startApp();
    await app.closeDatabase();
    const res = await fetch(`${app.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'error', problems: ['database unavailable'] });
  });

  it('when health is polled on the running server at info level, then other requests are logged and /healthz is not', async () => {
    const dataDir = tempDir('fs-health-');
    const server = await startServer({ env: { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' } });
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/files`)).status).toBe(401);
      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10_000)).toBe(0);
      const requests = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; path?: string })
        .filter((entry) => entry.msg === 'request');
      expect(requests.map((entry) => entry.path)).toEqual(['/api/v1/files']);
    } finally {
      killIfRunning(server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
