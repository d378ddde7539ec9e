// `npm run tokens` as an admin scripts it (ADR 0015): the built CLI in a child process, against
// a server running on the same data, on SQLite and on PostgreSQL. Also: a token is never logged.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { postgresS3Env } from '../helpers/test-backend';
import { registerUserCli, runNode, startServerProcess, TOKENS_JS, type ServerProcess } from '../helpers/process';

// Child processes (node start-up, bcrypt) are slow on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';

describe.each(['sqlite', 'postgresql'] as const)('the tokens CLI on %s', (dialect) => {
  let env: Record<string, string>;
  let server: ServerProcess;

  beforeAll(async () => {
    env = {
      DATA_DIR: tempDir('fs-tokens-'),
      SESSION_SECRET: TEST_SECRET,
      ...(dialect === 'postgresql' ? await postgresS3Env() : {}),
    };
    const made = await registerUserCli(['admin-made', '--password-stdin'], { env, input: `${PASSWORD}\n` });
    expect(made.code, made.stderr).toBe(0);
    server = await startServerProcess({ ...env, LOG_LEVEL: 'info' });
  }, 60_000);
  afterAll(() => server?.stop());

  const tokens = (args: string[]) => runNode(TOKENS_JS, args, { env });

  it('when an admin creates a token, then it is printed alone on stdout, works on the running server, lists, and once revoked stops working', async () => {
    const created = await tokens(['create', 'admin-made', '--name', 'deploy bot', '--expires-in-days', '90']);
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('not shown again');

    const form = new FormData();
    form.append('file', new Blob(['made by a bot']), 'bot.txt');
    const upload = await fetch(`${server.url}/api/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(201);

    const listed = await tokens(['list', 'admin-made', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [entry] = JSON.parse(listed.stdout).tokens;
    expect(entry).toMatchObject({ name: 'deploy bot', start: token.slice(0, 10) });
    expect(listed.stdout).not.toContain(token);
    const human = await tokens(['list', 'admin-made']);
    expect(human.stdout).toContain('"deploy bot"');
    expect(human.stdout.trim().split('\n')).toHaveLength(1);

    const revoked = await tokens(['revoke', 'admin-made', entry.id]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(`Revoked token ${entry.id} of admin-made`);
    expect((await fetch(`${server.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );

    // Never in the server's log, used or refused.
    expect(server.stdoutLines().join('\n')).not.toContain(token);
    expect(server.stdoutLines().join('\n')).not.toContain(token.slice(10));
  });

  it('when the command line or the user is wrong, then one line on stderr and a non-zero exit', async () => {
    const cases: Array<[string[], number, string]> = [
      [
        ['create', 'admin-made'],
        2,
        'Expected create <username> --name <name> [--expires-in-days <days>] [--json]. For usage, run: node dist/cli/tokens.js --help',
      ],
      [['explode', 'admin-made'], 2, 'Unknown command "explode". For usage, run: node dist/cli/tokens.js --help'],
      [
        ['create', 'admin-made', '--name', 'x', '--colour', 'red'],
        2,
        "Unknown option '--colour'. For usage, run: node dist/cli/tokens.js --help",
      ],
      [['create', 'nobody', '--name', 'x'], 1, 'No user named "nobody"'],
      [
        ['create', 'admin-made', '--name', 'x', '--expires-in-days', '0'],
        1,
        'expiresInDays must be a whole number from 1 to 3650',
      ],
      [['revoke', 'admin-made', 'no-such-id'], 1, 'Token not found'],
    ];
    for (const [args, code, message] of cases) {
      const result = await tokens(args);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stderr, args.join(' ')).toMatch(/^tokens: [^\n]+\n$/);
    }
  });

  it('when a token’s name holds a right-to-left override, then it is refused as the API refuses it: one line on stderr, exit 1, and no token', async () => {
    const result = await tokens(['create', 'admin-made', '--name', 'deploy \u202ebot']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'tokens: name must not contain control characters or bidirectional formatting characters\n',
    );
    const listed = await tokens(['list', 'admin-made', '--json']);
    expect(JSON.parse(listed.stdout).tokens.map((token: { name: string }) => token.name)).not.toContain(
      'deploy \u202ebot',
    );
  });
});
