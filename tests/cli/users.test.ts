// `npm run users` as an admin runs it (ADR 0018): the built CLI in a child process, beside a
// running server on the same data, on SQLite and on PostgreSQL. Each command's success line,
// JSON, failure line and exit code.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { visibleText } from '../helpers/pages-fixtures';
import { outsideView, postgresS3Env } from '../helpers/test-backend';
import { tusClient } from '../helpers/tus';
import { runNode, startServerProcess, USERS_JS, type ServerProcess } from '../helpers/process';

vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';

describe.each(['sqlite', 'postgresql'] as const)('the users CLI on %s', (dialect) => {
  let env: Record<string, string>;
  let server: ServerProcess;

  beforeAll(async () => {
    env = {
      DATA_DIR: tempDir('fs-users-'),
      SESSION_SECRET: TEST_SECRET,
      ...(dialect === 'postgresql' ? await postgresS3Env() : {}),
    };
    server = await startServerProcess(env);
  }, 60_000);
  afterAll(() => server?.stop());

  const users = (args: string[], input?: string) => runNode(USERS_JS, args, { env, input });
  const login = (username: string, password = PASSWORD) =>
    fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
  async function cookieOf(username: string, password = PASSWORD): Promise<string> {
    const res = await login(username, password);
    expect(res.status).toBe(200);
    return res.headers.getSetCookie()[0].split(';')[0];
  }
  const filesStatus = async (headers: Record<string, string>) =>
    (await fetch(`${server.url}/api/v1/files`, { headers })).status;

  it('when an admin adds a user and lists users, then the user can log in and the list shows files, bytes, quota and state', async () => {
    const added = await users(['add', 'carol', '--password-stdin'], `${PASSWORD}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^Created carol \(id [0-9a-f-]{36}\)\n$/);
    const cookie = await cookieOf('carol');
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(2048)]), 'two.bin');
    expect(
      (await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })).status,
    ).toBe(201);

    const listed = await users(['list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const carol = JSON.parse(listed.stdout).users.find((u: { username: string }) => u.username === 'carol');
    expect(carol).toMatchObject({ files: 1, bytes: 2048, quotaBytes: null, quotaSource: 'default', disabled: false });
    const human = await users(['list']);
    expect(human.stdout).toMatch(
      /^carol {2}created \d{4}-\d\d-\d\d {2}1 file {2}2 KiB {2}0 bytes held {2}no quota {2}active$/m,
    );

    const again = await users(['add', 'Carol', '--password-stdin'], `${PASSWORD}\n`);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe('users: Username is already taken\n');
  });

  it('when a user has an unfinished resumable upload, then the list shows the bytes it holds beside the bytes used, and nothing once it is cancelled', async () => {
    await users(['add', 'hana', '--password-stdin'], `${PASSWORD}\n`);
    const tus = tusClient(server.url, await cookieOf('hana'));
    const begun = await tus.create(3072, { filename: 'paused.bin' });
    expect(begun.status).toBe(201);
    // The server's BASE_URL is not its test port: the upload's path, on the port it listens on.
    const location = `${server.url}${begun.headers.get('location')!}`;
    expect((await tus.patch(location, 0, new Uint8Array(1024))).status).toBe(204);
    const hanaOf = async () =>
      JSON.parse((await users(['list', '--json'])).stdout).users.find(
        (u: { username: string }) => u.username === 'hana',
      );

    expect(await hanaOf()).toMatchObject({ files: 0, bytes: 0, heldBytes: 3072, unfinishedUploads: 1 });
    const human = await users(['list']);
    expect(human.stdout).toMatch(
      /^hana {2}created \d{4}-\d\d-\d\d {2}0 files {2}0 bytes {2}3 KiB held {2}no quota {2}active$/m,
    );

    expect((await tus.remove(location)).status).toBe(204);
    expect(await hanaOf()).toMatchObject({ heldBytes: 0, unfinishedUploads: 0 });
  });

  it('when an admin adds a username that starts with "-" after a lone --, then it is made and logs in (any of A-Z a-z 0-9 . _ -)', async () => {
    const added = await users(['add', '--password-stdin', '--', '-bot'], `${PASSWORD}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^Created -bot \(id [0-9a-f-]{36}\)\n$/);
    expect((await login('-bot')).status).toBe(200);
    const disabled = await users(['disable', '--', '-bot']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect((await login('-bot')).status).toBe(403);
  });

  it('when an admin sets a quota, then sizes, none and default are understood and a bad size is one line', async () => {
    await users(['add', 'dave', '--password-stdin'], `${PASSWORD}\n`);
    const cases: Array<[string, number | null, 'own' | 'default']> = [
      ['500MB', 500_000_000, 'own'],
      ['2GiB', 2 * 1024 ** 3, 'own'],
      ['none', null, 'own'],
      ['default', null, 'default'],
    ];
    for (const [value, bytes, source] of cases) {
      const set = await users(['quota', 'dave', value, '--json']);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).user).toMatchObject({ quotaBytes: bytes, quotaSource: source });
    }
    const human = await users(['quota', 'dave', '1KiB']);
    expect(human.stdout).toBe("dave's quota is now 1 KiB\n");
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(1025)]), 'big.bin');
    const refused = await fetch(`${server.url}/api/v1/files`, {
      method: 'POST',
      headers: { cookie: await cookieOf('dave') },
      body: form,
    });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ error: 'Storage quota exceeded: 1 KiB of your 1 KiB is free' });

    const bad = await users(['quota', 'dave', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      'users: Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "lots"\n',
    );
  });

  describe('when an admin sets a quota, then it is said in the unit written: MB, GB are powers of 1000; MiB, GiB and a bare M, G of 1024', () => {
    beforeAll(async () => {
      expect((await users(['add', 'ivan', '--password-stdin'], `${PASSWORD}\n`)).code).toBe(0);
    });
    // One test per size: each runs the CLI twice, and a table in one test outgrew its time on a busy machine.
    it.each<[string, number, string]>([
      ['500MB', 500_000_000, "ivan's quota is now 500 MB"],
      ['500MiB', 500 * 1024 ** 2, "ivan's quota is now 500 MiB"],
      ['2G', 2 * 1024 ** 3, "ivan's quota is now 2 GiB"],
      ['2GiB', 2 * 1024 ** 3, "ivan's quota is now 2 GiB"],
      ['2gb', 2_000_000_000, "ivan's quota is now 2 GB"],
      ['1.5 TB', 1.5e12, "ivan's quota is now 1.5 TB"],
      ['64k', 65_536, "ivan's quota is now 64 KiB"],
      ['1048576', 1_048_576, "ivan's quota is now 1 MiB"],
      ['none', 0, "ivan's quota is now unlimited"],
      ['default', 0, "ivan's quota is now the default (unlimited)"],
    ])(
      'when the quota is set to %s, then it is %d bytes and the answer reads as written',
      async (value, bytes, line) => {
        const human = await users(['quota', 'ivan', value]);
        expect(human.code, human.stderr).toBe(0);
        expect(human.stderr).toBe('');
        expect(human.stdout).toBe(`${line}\n`);
        if (bytes)
          expect(JSON.parse((await users(['quota', 'ivan', value, '--json'])).stdout).user.quotaBytes).toBe(bytes);
      },
    );
  });

  describe('when an admin sets a quota, then the answer, `users list` and the files page read it back as it was typed', () => {
    beforeAll(async () => {
      expect((await users(['add', 'bob', '--password-stdin'], `${PASSWORD}\n`)).code).toBe(0);
    });
    // One test per size: each runs the CLI twice and loads a page.
    it.each([
      ['1MB', '1 MB'],
      ['1 GB', '1 GB'],
      ['500MiB', '500 MiB'],
    ])('when the quota is set to %s, then everywhere it reads "%s"', async (typed, shown) => {
      const set = await users(['quota', 'bob', typed]);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toBe(`bob's quota is now ${shown}\n`);
      const listed = (await users(['list'])).stdout.split('\n').find((line) => line.startsWith('bob  '));
      expect(listed).toMatch(new RegExp(`  0 bytes  0 bytes held  quota ${shown}  active$`));
      const page = await fetch(`${server.url}/files`, { headers: { cookie: await cookieOf('bob') } });
      expect(visibleText(await page.text())).toContain(`0 bytes of ${shown} used (0%) by 0 files`);
    });

    it('when the quota is set to 1MB and an upload passes it, then the 413 says the room in MB', async () => {
      expect((await users(['quota', 'bob', '1MB'])).code).toBe(0);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(1_000_001)]), 'big.bin');
      const refused = await fetch(`${server.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: await cookieOf('bob') },
        body: form,
      });
      expect(refused.status).toBe(413);
      expect(await refused.json()).toEqual({ error: 'Storage quota exceeded: 1 MB of your 1 MB is free' });
    });
  });

  it('when a size is not one, then the quota command is one line on stderr, a non-zero exit, and the quota is unchanged', async () => {
    await users(['add', 'judy', '--password-stdin'], `${PASSWORD}\n`);
    expect((await users(['quota', 'judy', '3GiB'])).code).toBe(0);
    for (const value of ['lots', '2X', '-5MB', '5 GBB', '1e9', '2..5G', '99999999999TB', '']) {
      // After a lone --, as a value that starts with "-" must come.
      const bad = await users(['quota', 'judy', '--', value]);
      expect(bad.code, value).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toBe(
        `users: Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "${value}"\n`,
      );
    }
    const judy = JSON.parse((await users(['list', '--json'])).stdout).users.find(
      (u: { username: string }) => u.username === 'judy',
    );
    expect(judy.quotaBytes).toBe(3 * 1024 ** 3);
  });

  it('when a quota is set below what the user already stores, then it is set, with a warning that uploads will be refused', async () => {
    await users(['add', 'kim', '--password-stdin'], `${PASSWORD}\n`);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(3000)]), 'kept.bin');
    expect(
      (
        await fetch(`${server.url}/api/v1/files`, {
          method: 'POST',
          headers: { cookie: await cookieOf('kim') },
          body: form,
        })
      ).status,
    ).toBe(201);

    const lowered = await users(['quota', 'kim', '2KB']);
    expect(lowered.code, lowered.stderr).toBe(0);
    expect(lowered.stdout).toBe("kim's quota is now 2 kB\n");
    expect(lowered.stderr).toBe(
      'Warning: kim already stores 3 kB: new uploads will be refused until files are deleted\n',
    );
    const json = await users(['quota', 'kim', '2KB', '--json']);
    expect(JSON.parse(json.stdout).user).toMatchObject({ quotaBytes: 2000, bytes: 3000 });
    expect(json.stderr).toContain('kim already stores 3 kB');

    const roomy = await users(['quota', 'kim', '1MB']);
    expect(roomy.stdout).toBe("kim's quota is now 1 MB\n");
    expect(roomy.stderr).toBe('');
  });

  it('when an admin sets a password, then the user’s sessions end and only the new password works; a short one is refused', async () => {
    await users(['add', 'erin', '--password-stdin'], `${PASSWORD}\n`);
    const cookie = await cookieOf('erin');
    const changed = await users(['passwd', 'erin', '--password-stdin'], 'another fine password\n');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toBe('Password of erin changed; 1 session(s) logged out\n');
    expect(await filesStatus({ cookie })).toBe(401);
    expect((await login('erin')).status).toBe(401);
    await cookieOf('erin', 'another fine password');
    const short = await users(['passwd', 'erin', '--password-stdin'], 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('users: Password must be at least 8 characters long\n');
  });

  it('when an admin disables a user, then their session and token stop at once and login is refused; enabling brings back login and the token', async () => {
    await users(['add', 'frank', '--password-stdin'], `${PASSWORD}\n`);
    const cookie = await cookieOf('frank');
    const made = await fetch(`${server.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{"name":"cron"}',
    });
    const { token } = await made.json();

    const disabled = await users(['disable', 'frank']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toBe('frank is now disabled\n');
    expect(await filesStatus({ cookie })).toBe(401);
    expect(await filesStatus({ authorization: `Bearer ${token}` })).toBe(401);
    expect((await login('frank')).status).toBe(403);
    expect((await users(['disable', 'frank'])).stdout).toBe('frank was already disabled\n');

    const enabled = await users(['enable', 'frank', '--json']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({
      ok: true,
      changed: true,
      user: { username: 'frank', disabled: false },
    });
    expect(await filesStatus({ authorization: `Bearer ${token}` })).toBe(200);
    await cookieOf('frank');
  });

  it('when an admin deletes a user, then it needs --yes without a terminal, and then the user, their files, links and unfinished uploads are gone', async () => {
    await users(['add', 'gina', '--password-stdin'], `${PASSWORD}\n`);
    const cookie = await cookieOf('gina');
    const form = new FormData();
    form.append('file', new Blob(['bye']), 'bye.txt');
    const { file } = await (
      await fetch(`${server.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })
    ).json();
    const tus = tusClient(server.url, cookie);
    const begun = await tus.create(1000, { filename: 'half.bin' });
    // The server's BASE_URL is not its test port: the upload's path, on the port it listens on.
    const location = `${server.url}${begun.headers.get('location')!}`;
    expect((await tus.patch(location, 0, new Uint8Array(400))).status).toBe(204);
    const storage = outsideView(env).content;
    expect(await storage.partial()).not.toEqual([]);

    const unconfirmed = await users(['delete', 'gina']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toBe(
      'users: Deleting "gina" and all their files cannot be undone: add --yes to confirm\n',
    );
    expect((await fetch(`${server.url}/f/${file.id}/raw`)).status).toBe(200);

    const deleted = await users(['delete', 'gina', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('Deleted gina, 1 file(s) and 3 bytes\n');
    expect((await fetch(`${server.url}/f/${file.id}/raw`)).status).toBe(404);
    expect(await storage.partial()).toEqual([]);
    expect(await filesStatus({ cookie })).toBe(401);
    expect((await login('gina')).status).toBe(401);
    const listed = JSON.parse((await users(['list', '--json'])).stdout).users;
    expect(listed.map((u: { username: string }) => u.username)).not.toContain('gina');
  });

  it('when the command line or the user is wrong, then one line on stderr and a non-zero exit', async () => {
    const cases: Array<[string[], number, string]> = [
      [['frobnicate'], 2, 'users: Unknown command "frobnicate". For usage, run: node dist/cli/users.js --help\n'],
      [
        ['disable'],
        2,
        'users: Expected disable|enable <username> [--json]. For usage, run: node dist/cli/users.js --help\n',
      ],
      [['list', '--colour'], 2, "users: Unknown option '--colour'. For usage, run: node dist/cli/users.js --help\n"],
      [['disable', 'nobody-here'], 1, 'users: No user named "nobody-here"\n'],
      [['quota', 'nobody-here', '1GB'], 1, 'users: No user named "nobody-here"\n'],
      [
        ['add', '-bot', '--password-stdin'],
        2,
        `users: Unknown option '-b' (a name that starts with "-" goes after a lone --). For usage, run: node dist/cli/users.js --help\n`,
      ],
    ];
    for (const [args, code, line] of cases) {
      const result = await users(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
      expect(result.stderr).toBe(line);
    }
  });
});
