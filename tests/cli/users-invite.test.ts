// `npm run users -- invite` (ADR 0086): the built CLI makes an invitation link beside a running
// app on the same data; the link makes the account it says. Refused, one line and a non-zero
// exit, while REGISTRATION is off, and for a bad value. `users audit` (ADR 0087) prints the
// activity log, what the CLI did among it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
import { postForm, sessionSetCookie } from '../helpers/pages-fixtures';
import { runNode, USERS_JS } from '../helpers/process';

vi.setConfig({ testTimeout: 60_000 });

const PASSWORD = 'a perfectly fine password';

describe('invitations made with the CLI', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ REGISTRATION: 'invite' });
  }, 60_000);
  afterAll(() => app?.close());

  const users = (args: string[], env: Record<string, string> = {}) =>
    runNode(USERS_JS, args, { env: { ...app.env, ...env } });

  it('when an admin runs `users invite` with its options, then it prints the link once, and the link makes admins with that quota, twice', async () => {
    const made = await users(['invite', '--uses', '2', '--days', '3', '--quota', '1GB', '--admin', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const answer = JSON.parse(made.stdout) as { url: string; invitation: Record<string, unknown> };
    expect(answer.url).toMatch(new RegExp(`^${app.env.BASE_URL ?? 'http://localhost:\\d+'}/invite/[A-Za-z0-9_-]{24}$`));
    expect(answer.invitation).toMatchObject({
      maxUses: 2,
      uses: 0,
      quotaBytes: 1e9,
      admin: true,
      createdBy: null,
      state: 'open',
    });

    const path = new URL(answer.url).pathname;
    for (const name of ['cli-invited-1', 'cli-invited-2']) {
      const res = await postForm(app, path, { username: name, password: PASSWORD, passwordAgain: PASSWORD });
      expect(res.status).toBe(302);
      expect(sessionSetCookie(res)).toBeTruthy();
    }
    const rows = await app.rows("select quota_bytes, is_admin from users where username like 'cli-invited-%'");
    expect(rows.map((row) => [Number(row.quota_bytes), Boolean(row.is_admin)])).toEqual([
      [1e9, true],
      [1e9, true],
    ]);

    const human = await users(['invite']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /^\S+\/invite\/[A-Za-z0-9_-]{24}\nIt makes one account until \d{4}-\d\d-\d\d \d\d:\d\d UTC; it is shown only now\.\n$/,
    );
  });

  it('when the command line or a value is wrong, or invitations are off, then one line on stderr, a non-zero exit and nothing made', async () => {
    const before = await app.rows('select id from invitations');
    const cases: Array<[string[], Record<string, string>, number, string]> = [
      [['invite', '--days', '0'], {}, 1, 'users: expiresInDays must be a whole number from 1 to 365\n'],
      [['invite', '--uses', 'many'], {}, 1, 'users: maxUses must be a whole number from 1 to 1000\n'],
      [
        ['invite', '--quota', 'lots'],
        {},
        1,
        'users: Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "lots"\n',
      ],
      [['invite'], { REGISTRATION: 'off' }, 3, 'users: Invitations are turned off here (REGISTRATION=off)\n'],
      [
        ['invite'],
        { REGISTRATION: 'sometimes' },
        1,
        'users: REGISTRATION must be off, invite or open, got "sometimes"\n',
      ],
    ];
    for (const [args, env, code, stderr] of cases) {
      const run = await users(args, env);
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stderr).toBe(stderr);
      expect(run.stdout).toBe('');
    }
    const usage = await users(['list', '--days', '3']);
    expect(usage.code).toBe(2);
    expect(await app.rows('select id from invitations')).toEqual(before);
  });

  it('when an admin runs `users audit`, then the trail is printed oldest first, the CLI’s own deeds as the system, as lines or JSON lines, from --since on', async () => {
    const json = await users(['audit', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const entries = json.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            at: string;
            action: string;
            actor: { kind: string };
            target: { name: string | null } | null;
          },
      );
    const made = entries.find((entry) => entry.action === 'invitation.made');
    expect(made?.actor.kind).toBe('system');
    expect(entries.filter((entry) => entry.action === 'account.created').map((entry) => entry.target?.name)).toEqual([
      'cli-invited-1',
      'cli-invited-2',
    ]);
    expect(entries.map((entry) => entry.at)).toEqual([...entries.map((entry) => entry.at)].sort());
    const human = await users(['audit']);
    expect(human.stdout).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}system {2}invitation\.made {2}success {2}invitation \S+ {2}2 accounts, 3 days, admins$/m,
    );
    expect((await users(['audit', '--since', '2999-01-01'])).stdout).toBe('No events\n');
    const bad = await users(['audit', '--since', 'someday']);
    expect([bad.code, bad.stderr]).toEqual([1, 'users: since must be a date such as 2026-01-31, got "someday"\n']);
  });
});
