// Admins (ADR 0083) as the CLI makes them: `register-user --admin`, `users add --admin`,
// `users admin <name> on|off`, the admin column of `users list`, the last admin keeping the
// right, and an install without an admin saying how to make one, on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, tempDir, TEST_SECRET, type TestApp } from '../helpers/app';
import { registerUserCli, runNode, startServerProcess, USERS_JS } from '../helpers/process';
import { postgresS3Env } from '../helpers/test-backend';

vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';
const NO_ADMIN = 'No admin yet: make one with `npm run users -- admin <username> on`';

describe.each(['sqlite', 'postgresql'] as const)('admins made with the CLI on %s', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect === 'postgresql' ? await postgresS3Env() : {});
  }, 60_000);
  afterAll(() => app?.close());

  const users = (args: string[], input?: string) => runNode(USERS_JS, args, { env: app.env, input });

  it('when no user is an admin, then `users list` ends with how to make one', async () => {
    await app.createUser('plain');
    const list = await users(['list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe(`${list.stdout.split('\n')[0]}\n${NO_ADMIN}\n`);
    expect(list.stdout).toMatch(/^plain {2}.* {2}active\n/);
  });

  it('when register-user --admin and users add --admin make users, then both are admins in the list, and the hint is gone', async () => {
    const made = await registerUserCli(['root', '--admin', '--password-stdin'], {
      env: app.env,
      input: `${PASSWORD}\n`,
    });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^Created user root, an admin, \(id [0-9a-f-]{36}\)\n$/);
    const added = await users(['add', 'second', '--admin', '--password-stdin'], `${PASSWORD}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^Created second, an admin, \(id [0-9a-f-]{36}\)\n$/);

    const list = await users(['list', '--json']);
    const listed = JSON.parse(list.stdout).users as Array<{ username: string; admin: boolean }>;
    expect(listed.map((user) => [user.username, user.admin])).toEqual([
      ['plain', false],
      ['root', true],
      ['second', true],
    ]);
  });

  it('when an admin gives and takes the right, then the list reads it back, and saying it twice changes nothing', async () => {
    const on = await users(['admin', 'Plain', 'on']);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toBe('plain is now an admin\n');
    expect((await users(['admin', 'plain', 'on'])).stdout).toBe('plain was already an admin\n');
    const off = await users(['admin', 'plain', 'off', '--json']);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({
      ok: true,
      changed: true,
      user: { username: 'plain', admin: false },
    });
    expect((await users(['admin', 'plain', 'off'])).stdout).toBe('plain was not an admin\n');
    const list = await users(['list']);
    expect(list.stdout).toMatch(
      /^plain {2}.* {2}active\nroot {2}.* {2}active {2}admin\nsecond {2}.* {2}active {2}admin\n$/,
    );
  });

  it('when the last admin would lose the right, then it is one line, exit 3, and they keep it', async () => {
    expect((await users(['admin', 'second', 'off'])).code).toBe(0);
    const last = await users(['admin', 'root', 'off']);
    expect(last.code).toBe(3);
    expect(last.stdout).toBe('');
    expect(last.stderr).toBe(
      'users: root is the last admin: make another user an admin first, so that someone can still administer the site\n',
    );
    expect((await users(['admin', 'root', 'on'])).stdout).toBe('root was already an admin\n');
  });

  it.runIf(dialect === 'sqlite')(
    'when the command line is wrong, then one line on stderr and exit 2, or 1 for nobody',
    async () => {
      const maybe = await users(['admin', 'plain', 'maybe']);
      expect(maybe.code).toBe(2);
      expect(maybe.stderr).toBe(
        'users: admin takes on or off after the username, got "maybe". For usage, run: node dist/cli/users.js --help\n',
      );
      const misplaced = await users(['passwd', 'plain', '--admin', '--password-stdin'], `${PASSWORD}\n`);
      expect(misplaced.code).toBe(2);
      expect(misplaced.stderr.split('\n')[0]).toMatch(/^users: /);
      const nobody = await users(['admin', 'nobody', 'on']);
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toBe('users: No user named "nobody"\n');
    },
  );
});

describe('a server without an admin', () => {
  it('when the server starts with no admin, then it says how to make one; once there is one, it does not', async () => {
    const env = { DATA_DIR: tempDir('fs-no-admin-'), SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' };
    const hint = (lines: string[]) => lines.some((line) => line.includes(NO_ADMIN));
    const first = await startServerProcess(env);
    await first.stop();
    expect(hint(first.stdoutLines())).toBe(true);

    const made = await registerUserCli(['root', '--admin', '--password-stdin'], { env, input: `${PASSWORD}\n` });
    expect(made.code, made.stderr).toBe(0);
    const second = await startServerProcess(env);
    await second.stop();
    expect(hint(second.stdoutLines())).toBe(false);
    expect(second.stdoutLines().some((line) => line.includes('"listening"'))).toBe(true);
  });
});
