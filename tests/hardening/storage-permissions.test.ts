// An upload folder that stops taking writes: /healthz says so, an upload answers
// 503 with a clear JSON error and keeps nothing, and a delete still succeeds (the record is
// gone; the content is left to the housekeeping sweep). The server runs as an unprivileged
// user, so that file modes bind it (as root, chmod stops nothing).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { registerUserCli, startServerProcess, type ServerProcess } from '../helpers/process';

const PASSWORD = 'correct horse battery';
const asRoot = process.getuid?.() === 0;
/** As root: the server as nobody; otherwise as ourselves. */
const serverUser = asRoot ? { uid: 65534, gid: 65534 } : undefined;

let dataDir: string;
let uploads: string;
let server: ServerProcess;
let cookie: string;

beforeAll(async () => {
  dataDir = tempDir('fs-perm-');
  fs.chmodSync(dataDir, 0o755);
  const env = { DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' };
  const made = await registerUserCli(['owner', '--password-stdin'], { env, input: `${PASSWORD}\n` });
  expect(made.code, made.stderr).toBe(0);
  uploads = path.join(dataDir, 'uploads');
  if (serverUser) chownTree(dataDir, serverUser.uid, serverUser.gid);
  server = await startServerProcess(env, serverUser);
  const res = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'owner', password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  cookie = res.headers.getSetCookie()[0].split(';')[0];
});
afterAll(async () => {
  fs.chmodSync(uploads, 0o755);
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(full, uid, gid);
    else fs.chownSync(full, uid, gid);
  }
}

async function upload(name: string) {
  const form = new FormData();
  form.append('file', new Blob([`content of ${name}`]), name);
  return fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
}

function storedContent(): string[] {
  return fs.readdirSync(uploads).filter((name) => !name.startsWith('.'));
}

describe('an upload folder that has become read-only', () => {
  it('when uploads/ itself is read-only, then /healthz is 503, an upload is 503 with nothing kept, a delete is 200; and all is well once writable again', async () => {
    const kept = await upload('before.txt');
    expect(kept.status).toBe(201);
    const { file } = (await kept.json()) as { file: { id: string; storedName: string } };
    const rowsBefore = await (await fetch(`${server.url}/api/v1/files`, { headers: { cookie } })).json();

    fs.chmodSync(uploads, 0o555); // .incomplete inside stays writable: only the final rename fails
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'error', problems: ['upload directory not writable'] });

      const refused = await upload('refused.txt');
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({ error: 'Storage is unavailable. Try again in 10 seconds.' });
      expect(storedContent()).toEqual([file.storedName]);
      expect(fs.readdirSync(path.join(uploads, '.incomplete'))).toEqual([]);
      expect(await (await fetch(`${server.url}/api/v1/files`, { headers: { cookie } })).json()).toEqual(rowsBefore);

      const deleted = await fetch(`${server.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: { cookie } });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ ok: true });
      expect(await (await fetch(`${server.url}/api/v1/files`, { headers: { cookie } })).json()).toEqual({ files: [] });
      expect((await fetch(`${server.url}/f/${file.id}/raw`)).status).toBe(404);
    } finally {
      fs.chmodSync(uploads, 0o755);
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await upload('after.txt')).status).toBe(201);
  });
});
