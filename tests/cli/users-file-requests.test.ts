// `npm run users -- delete <user>` and file requests (ADR 0048): the built CLI in a child
// process beside a running server, on SQLite and on PostgreSQL. A deleted user's requests go
// with them: their links answer 404, and what guests sent is gone with the user's files.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { postgresS3Env } from '../helpers/test-backend';
import { runNode, startServerProcess, USERS_JS, type ServerProcess } from '../helpers/process';

vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';

describe.each(['sqlite', 'postgresql'] as const)('file requests and the users CLI on %s', (dialect) => {
  let env: Record<string, string>;
  let server: ServerProcess;

  beforeAll(async () => {
    env = {
      DATA_DIR: tempDir('fs-requests-cli-'),
      SESSION_SECRET: TEST_SECRET,
      ...(dialect === 'postgresql' ? await postgresS3Env() : {}),
    };
    server = await startServerProcess(env);
  }, 60_000);
  afterAll(() => server?.stop());

  const users = (args: string[], input?: string) => runNode(USERS_JS, args, { env, input });

  it('when an admin deletes a user, then their file requests go too: the link answers 404', async () => {
    expect((await users(['add', 'grace', '--password-stdin'], `${PASSWORD}\n`)).code).toBe(0);
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'grace', password: PASSWORD }),
    });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const made = await fetch(`${server.url}/api/v1/requests`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Before leaving' }),
    });
    expect(made.status).toBe(201);
    const { request } = (await made.json()) as { request: { id: string } };
    const form = new FormData();
    form.append('file', new Blob(['from a guest']), 'guest.txt');
    const sent = await fetch(`${server.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: form,
    });
    expect(sent.status).toBe(201);

    const deleted = await users(['delete', 'grace', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);

    expect((await fetch(`${server.url}/r/${request.id}`)).status).toBe(404);
    const again = new FormData();
    again.append('file', new Blob(['late']), 'late.txt');
    const late = await fetch(`${server.url}/r/${request.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: again,
    });
    expect(late.status).toBe(404);
    expect(await late.json()).toEqual({ error: 'File request not found' });
  });
});
