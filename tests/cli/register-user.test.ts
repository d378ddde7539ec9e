// `register-user` as the operator runs it: the built CLI in a child process (README: Create a user).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { initOrm, type Orm } from '../../server/db/orm';
import { ROOT, startApp, tempDir, TEST_SECRET, type TestApp } from '../helpers/app';
import { CLI_JS, cleanEnv, registerUserCli, type RunResult } from '../helpers/process';

// Child processes (node start-up, bcrypt) are slow on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One shared data dir for the cases that only need "a database with some users". */
let dataDir: string;
let shared: Orm;
const env = () => ({ DATA_DIR: dataDir, SESSION_SECRET: TEST_SECRET });

beforeAll(async () => {
  dataDir = tempDir('fs-cli-');
  shared = await initOrm({ dialect: 'sqlite', path: path.join(dataDir, 'app.db') });
});
afterAll(() => shared.close());

function register(username: string, password: string | null, extra: Record<string, string> = {}) {
  const args = password === null ? [username] : [username, '--password-stdin'];
  return registerUserCli(args, { env: { ...env(), ...extra }, input: password === null ? '' : `${password}\n` });
}

async function usersOf(orm: Orm): Promise<Record<string, unknown>[]> {
  return orm.em.fork().getConnection().execute('select id, username, password_hash from users order by username');
}

/** The users table of a data dir, straight from its SQLite file. */
async function usersIn(dir: string): Promise<Record<string, unknown>[]> {
  if (dir === dataDir) return usersOf(shared);
  const orm = await initOrm({ dialect: 'sqlite', path: path.join(dir, 'app.db') });
  try {
    return await usersOf(orm);
  } finally {
    await orm.close();
  }
}

/** A failure the operator can read: non-zero, nothing on stdout, exactly one line on stderr, no stack. */
function expectOneLineFailure(result: RunResult, mentions?: RegExp) {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  expect(result.stdout).toBe('');
  const lines = result.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toContain('    at ');
  if (mentions) expect(lines[0]).toMatch(mentions);
}

describe('register-user --password-stdin', () => {
  it('when a valid name and password are piped in, then it exits 0, says "Created user <name> (id <id>)", and the user exists with a bcrypt hash', async () => {
    const result = await register('Alice', PASSWORD);

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const id = /^Created user Alice \(id (\S+)\)\n$/.exec(result.stdout)?.[1];
    expect(id).toMatch(UUID);
    const users = await usersIn(dataDir);
    const alice = users.find((user) => user.username === 'Alice');
    expect(alice?.id).toBe(id);
    expect(String(alice?.password_hash)).toMatch(/^\$2[aby]\$10\$/);
    expect(String(alice?.password_hash)).not.toContain(PASSWORD);
  });

  it('when the name is already taken in another case, then it fails with one line and no second user is made', async () => {
    expect((await register('Taken', PASSWORD)).code).toBe(0);

    const result = await register('tAKEN', 'another password');

    expectOneLineFailure(result, /taken/i);
    const users = (await usersIn(dataDir)).filter((user) => String(user.username).toLowerCase() === 'taken');
    expect(users).toHaveLength(1);
    expect(users[0].username).toBe('Taken');
  });

  it.each([
    ['has a space', 'has space'],
    ['is 65 characters long', 'a'.repeat(65)],
    ['is empty', ''],
    ['has a non-ASCII letter', 'jürgen'],
  ])('when the username %s, then it fails with one line and no user is made', async (_what, username) => {
    expectOneLineFailure(await register(username, PASSWORD), /username/i);
    expect((await usersIn(dataDir)).map((user) => user.username)).not.toContain(username);
  });

  it('when the username is exactly 64 allowed characters (letters, digits, ".", "_", "-"), then it is accepted', async () => {
    const username = `A.b_c-9${'x'.repeat(57)}`;
    expect(username).toHaveLength(64);

    const result = await register(username, PASSWORD);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Created user ${username} (id `);
  });

  it('when a script asks for --quiet, then only the new id is printed; with --json, the user as JSON', async () => {
    const quiet = await registerUserCli(['quiet-one', '--password-stdin', '--quiet'], {
      env: env(),
      input: `${PASSWORD}\n`,
    });
    expect(quiet.code, quiet.stderr).toBe(0);
    const quietId = quiet.stdout.trim();
    expect(quietId).toMatch(UUID);
    expect(quiet.stdout).toBe(`${quietId}\n`);

    const json = await registerUserCli(['json-one', '--json', '--password-stdin'], {
      env: env(),
      input: `${PASSWORD}\n`,
    });
    expect(json.code, json.stderr).toBe(0);
    const { user } = JSON.parse(json.stdout);
    expect(user).toEqual({ id: expect.stringMatching(UUID), username: 'json-one' });

    const rows = await usersIn(dataDir);
    expect(rows.find((row) => row.username === 'quiet-one')?.id).toBe(quietId);
    expect(rows.find((row) => row.username === 'json-one')?.id).toBe(user.id);
  });

  it('when both --json and --quiet are given, then it is one line pointing to --help and no user is made', async () => {
    const result = await registerUserCli(['both-ways', '--json', '--quiet', '--password-stdin'], {
      env: env(),
      input: `${PASSWORD}\n`,
    });
    expectOneLineFailure(result, /--json or --quiet.*--help/);
    expect(result.code).toBe(2);
    expect((await usersIn(dataDir)).map((user) => user.username)).not.toContain('both-ways');
  });

  it('when the password is 7 characters, then it fails with one line', async () => {
    expectOneLineFailure(await register('shorty', '1234567'), /password/i);
  });

  it('when the password is 73 bytes of UTF-8 (36 "é" and one "a"), then it is refused, never truncated', async () => {
    const password = `a${'é'.repeat(36)}`;
    expect(Buffer.byteLength(password)).toBe(73);

    expectOneLineFailure(await register('toolong', password), /password/i);
    expect((await usersIn(dataDir)).map((user) => user.username)).not.toContain('toolong');
  });

  it('when stdin is empty, then it fails with one line', async () => {
    expectOneLineFailure(await registerUserCli(['nopass', '--password-stdin'], { env: env(), input: '' }));
  });

  it('when only the first line of stdin is the password, then the rest is ignored', async () => {
    const result = await registerUserCli(['multiline', '--password-stdin'], {
      env: env(),
      input: `${PASSWORD}\nsecond line\n`,
    });

    expect(result.code).toBe(0);
  });
});

describe('the password limits, checked by logging in', () => {
  let app: TestApp | undefined;
  afterAll(() => app?.close());

  it('when the password is 8 characters or exactly 72 bytes, then it is accepted and logs in with exactly that password', async () => {
    const dir = tempDir('fs-cli-');
    const eight = '12345678';
    const seventyTwo = 'é'.repeat(36);
    expect(Buffer.byteLength(seventyTwo)).toBe(72);
    expect(
      (await registerUserCli(['eight', '--password-stdin'], { env: { DATA_DIR: dir }, input: `${eight}\n` })).code,
    ).toBe(0);
    expect(
      (await registerUserCli(['wide', '--password-stdin'], { env: { DATA_DIR: dir }, input: `${seventyTwo}\n` })).code,
    ).toBe(0);

    app = await startApp({ DATA_DIR: dir });
    const login = (username: string, password: string) =>
      fetch(`${app!.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      }).then((res) => res.status);

    expect(await login('eight', eight)).toBe(200);
    expect(await login('wide', seventyTwo)).toBe(200);
    expect(await login('wide', `${'é'.repeat(35)}e`)).toBe(401);
  });
});

describe('the username alphabet (1-64 characters of A-Z a-z 0-9 . _ -)', () => {
  let app: TestApp | undefined;
  afterAll(() => app?.close());

  it('when a username starts with ".", "-" or "_", or is only dots, then the user is made and logs in with it', async () => {
    const dir = tempDir('fs-cli-');
    const names = ['.hidden', '..', '-dash', '_under', 'a.b-c_d', 'x'.repeat(64)];
    for (const name of names) {
      const result = await registerUserCli([name, '--password-stdin'], {
        env: { DATA_DIR: dir },
        input: `${PASSWORD}\n`,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Created user ${name} (id `);
    }
    expect((await usersIn(dir)).map((user) => user.username)).toEqual([...names].sort());

    app = await startApp({ DATA_DIR: dir });
    for (const name of names) {
      const res = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: name, password: PASSWORD }),
      });
      expect(res.status, name).toBe(200);
      expect((await res.json()).user.username).toBe(name);
    }
  });
});

describe('where it runs', () => {
  it('when DATA_DIR does not exist yet, then it creates it with the schema and the user', async () => {
    const fresh = path.join(tempDir('fs-cli-'), 'not', 'yet', 'there');

    const result = await registerUserCli(['first', '--password-stdin'], {
      env: { DATA_DIR: fresh },
      input: `${PASSWORD}\n`,
    });

    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(fresh, 'app.db'))).toBe(true);
    expect((await usersIn(fresh)).map((user) => user.username)).toEqual(['first']);
  });

  it('when the server is running on the same DATA_DIR, then the new user can log in over HTTP right away', async () => {
    const dir = tempDir('fs-cli-');
    const app = await startApp({ DATA_DIR: dir });
    try {
      await app.createUser('existing');
      const result = await registerUserCli(['newcomer', '--password-stdin', '--quiet'], {
        env: { DATA_DIR: dir },
        input: `${PASSWORD}\n`,
      });
      expect(result.code, result.stderr).toBe(0);

      const res = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'newcomer', password: PASSWORD }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).user).toEqual({ id: result.stdout.trim(), username: 'newcomer' });
    } finally {
      await app.close();
    }
  });

  it('when the database cannot be opened, then it fails with one line', async () => {
    const dir = tempDir('fs-cli-');
    const notADatabase = path.join(dir, 'db-is-a-directory');
    fs.mkdirSync(notADatabase);

    const result = await registerUserCli(['someone', '--password-stdin'], {
      env: { DATA_DIR: dir, DATABASE_URL: `file:${notADatabase}` },
      input: `${PASSWORD}\n`,
    });

    expectOneLineFailure(result);
  });

  it('when the configuration is malformed, then it fails with one line naming the variable', async () => {
    const result = await registerUserCli(['someone', '--password-stdin'], {
      env: { DATA_DIR: tempDir('fs-cli-'), SESSION_SECRET: 'too-short' },
      input: `${PASSWORD}\n`,
    });

    expectOneLineFailure(result, /SESSION_SECRET/);
  });
});

describe('what it refuses', () => {
  it.each([
    ['eight spaces', '        '],
    ['tabs and no-break spaces', '\t\u00a0\t\u00a0\t\u00a0\t\u00a0'],
    ['zero-width spaces', '\u200b'.repeat(8)],
  ])('when the password is %s, then it fails with one line and no user is made', async (_label, password) => {
    const result = await register('blankpass', password);
    expectOneLineFailure(result, /Password must not be only spaces or invisible characters/);
    expect((await usersIn(dataDir)).map((user) => user.username)).not.toContain('blankpass');
  });

  it.each([
    ['six letters and an emoji (7 characters, 8 UTF-16 units)', 'abcdef😀'],
    ['four emoji (4 characters, 8 UTF-16 units)', '😀😀😀😀'],
  ])(
    'when the password is %s, then it fails as shorter than 8 characters and no user is made',
    async (_label, password) => {
      const result = await register('shortemoji', password);
      expectOneLineFailure(result, /Password must be at least 8 characters long/);
      expect((await usersIn(dataDir)).map((user) => user.username)).not.toContain('shortemoji');
    },
  );

  it('when the password is eight emoji (8 characters, 32 bytes), then the user is made', async () => {
    const result = await register('eightemoji', '😀'.repeat(8));
    expect(result.code, result.stderr).toBe(0);
    expect((await usersIn(dataDir)).map((user) => user.username)).toContain('eightemoji');
  });

  it.each(['', 'a b', 'élan', 'a/b', 'x'.repeat(65)])(
    'when the username is %j (outside 1-64 of A-Z a-z 0-9 . _ -), then it fails with one line and no user is made',
    async (username) => {
      const before = await usersIn(dataDir);
      const result = await register(username, PASSWORD);
      expectOneLineFailure(result, /Username must be 1-64 characters of letters, digits, "\.", "_" or "-"/);
      expect(await usersIn(dataDir)).toEqual(before);
    },
  );

  it('when DATA_DIR is a path that can never exist (/proc/nope), then it exits non-zero at once with one line naming DATA_DIR', async () => {
    const started = performance.now();
    const result = await registerUserCli(['someone', '--password-stdin'], {
      env: { DATA_DIR: '/proc/nope/data' },
      input: `${PASSWORD}\n`,
    });
    expectOneLineFailure(result, /DATA_DIR/);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('when it creates the database, then the file is readable by its owner only (0600)', async () => {
    const dir = tempDir('fs-cli-');
    expect((await register('owner', PASSWORD, { DATA_DIR: dir })).code).toBe(0);
    expect(fs.statSync(path.join(dir, 'app.db')).mode & 0o777).toBe(0o600);
  });
});

describe('arguments', () => {
  it('when it is run without arguments, then it prints the usage and exits non-zero', async () => {
    const result = await registerUserCli([], { env: env() });

    expectOneLineFailure(result, /usage/i);
  });

  it('when it is given two usernames, then it prints the usage and exits non-zero', async () => {
    expectOneLineFailure(
      await registerUserCli(['one', 'two', '--password-stdin'], { env: env(), input: `${PASSWORD}\n` }),
      /usage/i,
    );
  });

  it('when it is given an unknown option, then it fails with one line naming it and pointing to --help', async () => {
    expectOneLineFailure(
      await registerUserCli(['someone', '--frobnicate'], { env: env() }),
      /--frobnicate.*node dist\/cli\/register-user\.js --help/,
    );
  });

  it('when stdin is not a terminal and --password-stdin is missing, then it fails with one line instead of waiting', async () => {
    expectOneLineFailure(await registerUserCli(['someone'], { env: env(), input: `${PASSWORD}\n` }), /password-stdin/);
  });
});

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('the interactive prompt (a pseudo-terminal through `script`)', () => {
  /** Runs the CLI on a pty, typing each answer once its prompt has appeared. */
  function runOnTerminal(username: string, answers: [prompt: string, answer: string][], dir: string) {
    return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('script', ['-qec', `"${process.execPath}" "${CLI_JS}" ${username}`, '/dev/null'], {
        cwd: ROOT,
        env: cleanEnv({ DATA_DIR: dir }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      let next = 0;
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no answer from the terminal: ${JSON.stringify(output)}`));
      }, 20_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        while (next < answers.length && output.split(answers[next][0]).length - 1 >= countOf(answers, next)) {
          child.stdin.write(`${answers[next][1]}\r`);
          next++;
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }
  /** How many times the prompt of answer `i` must have appeared before it is typed. */
  function countOf(answers: [string, string][], i: number) {
    return answers.slice(0, i + 1).filter(([prompt]) => prompt === answers[i][0]).length;
  }

  it('when the same password is typed twice on a terminal, then the user is created and the password is never echoed', async () => {
    const dir = tempDir('fs-cli-');
    const secret = 'typed-on-a-tty-123';

    const { code, output } = await runOnTerminal(
      'ttyuser',
      [
        ['Password: ', secret],
        ['Repeat password: ', secret],
      ],
      dir,
    );

    expect(code, output).toBe(0);
    expect(output).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
    expect(output).not.toContain(secret);
    expect((await usersIn(dir)).map((user) => user.username)).toEqual(['ttyuser']);
  });

  it.each([
    ['Ctrl-C', '\x03'],
    ['Ctrl-D', '\x04'],
  ])(
    'when the password prompt gets %s, then it exits non-zero saying it was cancelled, and no user is made',
    async (_key, keys) => {
      const dir = tempDir('fs-cli-');

      const { code, output } = await runOnTerminal('ttyuser', [['Password: ', keys]], dir);

      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(output).toContain('register-user: Cancelled: nothing was changed');
      expect(output).not.toContain('    at ');
      expect(fs.existsSync(path.join(dir, 'app.db')) ? (await usersIn(dir)).length : 0).toBe(0);
    },
  );

  it('when the two typed passwords differ, then it fails and no user is made', async () => {
    const dir = tempDir('fs-cli-');

    const { code, output } = await runOnTerminal(
      'ttyuser',
      [
        ['Password: ', 'first-password'],
        ['Repeat password: ', 'other-password'],
      ],
      dir,
    );

    expect(code).not.toBe(0);
    expect(output).toMatch(/do not match/i);
    expect(output).not.toContain('first-password');
    expect(fs.existsSync(path.join(dir, 'app.db')) ? (await usersIn(dir)).length : 0).toBe(0);
  });
});
