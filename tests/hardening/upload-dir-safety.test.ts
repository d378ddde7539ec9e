// UPLOAD_DIR belongs to the service: a start never deletes what the service did not
// make. Sharing it with DATA_DIR or the database is refused with one line; any other folder
// keeps its foreign files. The built server and CLI as real processes.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { CLI_JS, runNode, SERVER_JS, startServerProcess, type ServerProcess } from '../helpers/process';

vi.setConfig({ testTimeout: 60_000 });

let server: ServerProcess | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** Files someone keeps in a folder, with their content, to check nothing was touched. */
function plant(dir: string, names: string[]): Record<string, string> {
  const planted: Record<string, string> = {};
  for (const name of names) {
    planted[name] = `kept: ${name}`;
    fs.writeFileSync(path.join(dir, name), planted[name]);
    const old = new Date(Date.now() - 24 * 60 * 60 * 1000);
    fs.utimesSync(path.join(dir, name), old, old);
  }
  return planted;
}

function expectUntouched(dir: string, planted: Record<string, string>): void {
  for (const [name, content] of Object.entries(planted))
    expect(fs.readFileSync(path.join(dir, name), 'utf8')).toBe(content);
}

describe('a start over an UPLOAD_DIR that is not the service’s own', () => {
  it('when UPLOAD_DIR is DATA_DIR, then the server refuses to start with one line and deletes nothing', async () => {
    const dir = tempDir('fs-shared-dir-');
    const planted = plant(dir, ['notes.txt', 'settings.json', 'app.db', 'session-secret']);

    const result = await runNode(SERVER_JS, [], {
      env: { DATA_DIR: dir, UPLOAD_DIR: dir, SESSION_SECRET: TEST_SECRET, PORT: '0' },
    });

    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/UPLOAD_DIR .* must not be DATA_DIR or contain it/);
    expectUntouched(dir, planted);
  });

  it('when UPLOAD_DIR holds DATA_DIR, or DATABASE_URL points inside it, then the server and the CLI refuse with one line', async () => {
    const uploads = tempDir('fs-shared-parent-');
    const inside = {
      DATA_DIR: path.join(uploads, 'data'),
      UPLOAD_DIR: uploads,
      SESSION_SECRET: TEST_SECRET,
      PORT: '0',
    };
    const server = await runNode(SERVER_JS, [], { env: inside });
    expect(server.code).not.toBe(0);
    expect(server.stderr).toMatch(/UPLOAD_DIR .* must not be DATA_DIR or contain it/);

    const dbInside = {
      DATA_DIR: tempDir('fs-data-'),
      UPLOAD_DIR: uploads,
      DATABASE_URL: `file:${path.join(uploads, 'app.db')}`,
      SESSION_SECRET: TEST_SECRET,
    };
    const cli = await runNode(CLI_JS, ['someone', '--password-stdin'], {
      env: dbInside,
      input: 'long enough password\n',
    });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr.trim().split('\n')).toHaveLength(1);
    expect(cli.stderr).toMatch(/DATABASE_URL: the database .* must not be inside UPLOAD_DIR/);
  });

  it('when UPLOAD_DIR is an existing folder with files of other shapes, then the server starts and leaves every one of them', async () => {
    const uploads = tempDir('fs-existing-uploads-');
    const planted = plant(uploads, ['notes.txt', 'settings.json', 'photo.jpg', 'README', 'x.y.z']);

    server = await startServerProcess({
      DATA_DIR: tempDir('fs-data-'),
      UPLOAD_DIR: uploads,
      SESSION_SECRET: TEST_SECRET,
      LOG_LEVEL: 'info',
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    expectUntouched(uploads, planted);
  });
});
