// Two instances of the built server on one PostgreSQL database and one bucket:
// they serve the same users and files, a logout on one holds on the other, the login throttle
// counts across both, and a restart of one (with its start-up sweep) leaves the other's upload
// in progress alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { openUpload } from '../helpers/multipart';
import { postgresS3Env } from '../helpers/test-backend';
import { bucketKeys, putObject } from '../helpers/buckets';
import { CLI_JS, runNode, startServerProcess, type ServerProcess } from '../helpers/process';

const PASSWORD = 'correct horse battery';
let env: Record<string, string>;
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  env = { ...(await postgresS3Env()), SESSION_SECRET: TEST_SECRET, TRUST_PROXY: 'true', LOG_LEVEL: 'info' };
  const made = await runNode(CLI_JS, ['shared', '--password-stdin'], {
    env: { ...env, DATA_DIR: tempDir() },
    input: `${PASSWORD}\n`,
  });
  expect(made.code, made.stderr).toBe(0);
  a = await startServerProcess({ ...env, DATA_DIR: tempDir() });
  b = await startServerProcess({ ...env, DATA_DIR: tempDir() });
}, 60_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

function login(server: ServerProcess, password = PASSWORD, from = '198.51.100.1') {
  return fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username: 'shared', password }),
  });
}

async function cookieFrom(server: ServerProcess): Promise<string> {
  const res = await login(server);
  expect(res.status).toBe(200);
  return res.headers.getSetCookie()[0].split(';')[0];
}

describe('two instances behind one address', () => {
  it('when a file is uploaded on one, then the other lists it, serves it byte-exact and deletes it, after which neither serves it', async () => {
    const cookie = await cookieFrom(a);
    const form = new FormData();
    form.append('file', new Blob(['made on instance A']), 'a.txt');
    const uploaded = await fetch(`${a.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
    expect(uploaded.status).toBe(201);
    const { file } = (await uploaded.json()) as { file: { id: string } };

    const listed = (await (await fetch(`${b.url}/api/v1/files`, { headers: { cookie } })).json()) as {
      files: Array<{ id: string }>;
    };
    expect(listed.files.map((entry) => entry.id)).toContain(file.id);
    expect(await (await fetch(`${b.url}/f/${file.id}/raw`)).text()).toBe('made on instance A');

    expect((await fetch(`${b.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(
      200,
    );
    expect((await fetch(`${a.url}/f/${file.id}/raw`)).status).toBe(404);
    expect((await fetch(`${b.url}/f/${file.id}/raw`)).status).toBe(404);
  });

  it('when a session is logged out on one instance, then the other refuses its token', async () => {
    const cookie = await cookieFrom(a);
    expect((await fetch(`${b.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${a.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${b.url}/api/v1/files`, { headers: { cookie } })).status).toBe(401);
  });

  it('when failures from one address are spread over both instances, then they count together', async () => {
    for (let i = 0; i < 5; i++) expect((await login(i % 2 ? a : b, 'wrong', '203.0.113.33')).status).toBe(401);
    expect((await login(a, PASSWORD, '203.0.113.33')).status).toBe(429);
    expect((await login(b, PASSWORD, '203.0.113.33')).status).toBe(429);
    expect((await login(b, PASSWORD, '203.0.113.34')).status).toBe(200);
  });

  it('when one instance restarts (and sweeps) while the other is mid-upload, then that upload completes and is served, and content just written without its record yet is kept', {
    timeout: 60_000,
  }, async () => {
    const cookie = await cookieFrom(a);
    // What another instance leaves for a moment between its content and its record: an object
    // of the stored-name shape with no row. Minutes old, it is not an orphan yet.
    const between = 'aW4tYmV0d2Vlbi1jb250ZW.bin';
    await putObject(env, between, 'record on its way');
    const size = 12 * 1024 * 1024;
    const upload = openUpload(a.url, cookie, { filename: 'slow.bin', size });
    const chunk = Buffer.alloc(1024 * 1024, 0x5a);
    for (let sent = 0; sent < size; sent += chunk.length) {
      upload.request.write(chunk);
      // Half-way, instance B restarts and sweeps the shared database and bucket.
      if (sent === 6 * 1024 * 1024) {
        await b.stop();
        b = await startServerProcess({ ...env, DATA_DIR: tempDir() });
      }
    }
    const { status, text } = await upload.finish();
    expect(status).toBe(201);
    const { file } = JSON.parse(text) as { file: { id: string; size: number } };
    expect(file.size).toBe(size);
    const raw = await fetch(`${b.url}/f/${file.id}/raw`);
    expect(raw.status).toBe(200);
    expect((await raw.arrayBuffer()).byteLength).toBe(size);
    expect(await bucketKeys(env)).toContain(between);
  });
});
