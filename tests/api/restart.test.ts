// What survives a restart over the same DATA_DIR: users, files, sessions, the generated secret.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, startApp, tempDir, type TestApp } from '../helpers/app';
import { binaryContent } from '../helpers/multipart';
import { registerUserCli, startServerProcess, type ServerProcess } from '../helpers/process';
import { sessionCookies } from '../helpers/tokens';

// Child processes (node start-up, bcrypt) are slow on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

describe('a restart of the app over the same data', () => {
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  afterEach(async () => {
    await first?.close().catch(() => {});
    await second?.close().catch(() => {});
    first = second = undefined;
  });

  it('when the app restarts, then the user can log in, the file is listed and downloads byte-exact, and the old cookie still works', async () => {
    first = await startApp();
    await first.createUser('keeper');
    const oldCookie = await first.login('keeper');
    const content = binaryContent(1024);
    const res = await fetch(`${first.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: oldCookie },
      body: fileForm(content, 'data.bin'),
    });
    expect(res.status).toBe(201);
    const { file } = await res.json();
    const { env } = first;
    await first.close();
    first = undefined;

    second = await startApp(env);

    const cookie = await second.login('keeper');
    const listed = await (await fetch(`${second.url}/api/v1/files`, { headers: { cookie } })).json();
    expect(listed).toEqual({ files: [{ ...file, request: null, receivedFrom: null }] });
    const raw = await fetch(`${second.url}/f/${file.id}/raw`);
    expect(raw.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await raw.arrayBuffer()), Buffer.from(content))).toBe(0);
    expect((await fetch(`${second.url}/api/v1/files`, { headers: { cookie: oldCookie } })).status).toBe(200);
  });

  it('when the app restarts, then a session logged out before the restart stays revoked', async () => {
    first = await startApp();
    await first.createUser('leaver');
    const cookie = await first.login('leaver');
    expect((await fetch(`${first.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(200);
    const { env } = first;
    await first.close();
    first = undefined;

    second = await startApp(env);

    expect((await fetch(`${second.url}/api/v1/files`, { headers: { cookie } })).status).toBe(401);
  });
});

describe('the generated session secret (SESSION_SECRET unset), with the real server process', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.kill());

  it('when SESSION_SECRET is unset, then $DATA_DIR/session-secret is created with mode 0600, a warning is logged, and it is reused after a restart', async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir };
    const secretFile = path.join(dataDir, 'session-secret');

    server = await startServerProcess(env);
    const stat = fs.statSync(secretFile);
    expect(stat.mode & 0o777).toBe(0o600);
    const secret = fs.readFileSync(secretFile, 'utf8');
    expect(secret.trim().length).toBeGreaterThanOrEqual(32);
    const warnings = server
      .stdoutLines()
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level === 40);
    expect(warnings.some((entry) => String(entry.msg).includes('SESSION_SECRET'))).toBe(true);
    expect(server.stdoutLines().join('\n')).not.toContain(secret.trim());

    const cli = await registerUserCli(['restarter', '--password-stdin'], { env, input: `${DEFAULT_PASSWORD}\n` });
    expect(cli.code).toBe(0);
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'restarter', password: DEFAULT_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = `token=${sessionCookies(login)[0].value}`;
    expect(await server.stop()).toBe(0);

    server = await startServerProcess(env);

    expect(fs.readFileSync(secretFile, 'utf8')).toBe(secret);
    expect((await fetch(`${server.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });
});
