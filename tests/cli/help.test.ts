// `--help` on every admin command: the built CLI in a child process, named as the
// container runs it (`node dist/cli/<name>.js`), and once through npm as on a clone. Help reads no
// settings and opens nothing; a wrong command line is one line on stderr that points to it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/app';
import { CLI_JS, MOVE_INSTALL_JS, runCommand, runNode, TOKENS_JS, USERS_JS, type RunResult } from '../helpers/process';

vi.setConfig({ testTimeout: 90_000 });

const PASSWORD = 'a perfectly fine password';

/** Each command, its built file, and the options and commands its help must list. */
const COMMANDS = [
  { name: 'register-user', script: CLI_JS, lists: ['<username>', '--admin', '--password-stdin'] },
  {
    name: 'users',
    script: USERS_JS,
    lists: [
      'list',
      'add',
      'admin',
      'passwd',
      'disable|enable',
      'delete',
      'quota',
      'reset-2fa',
      '--password-stdin',
      '--yes',
      '--admin',
      '--json',
    ],
  },
  {
    name: 'tokens',
    script: TOKENS_JS,
    lists: ['create', 'list', 'revoke', '--name <name>', '--expires-in-days <days>', '--json'],
  },
  { name: 'move-install', script: MOVE_INSTALL_JS, lists: ['--from-database file:<path>', '--from-uploads <folder>'] },
] as const;

/** A DATA_DIR that does not exist yet: anything that reads the settings and opens the database creates it. */
function freshDataDir(): string {
  return path.join(tempDir('fs-cli-help-'), 'data');
}

function expectUsage(result: RunResult, invocation: string, lists: readonly string[]) {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(new RegExp(`^Usage: ${invocation.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
  for (const item of lists) expect(result.stdout, item).toContain(item);
  expect(lines).toContainEqual(expect.stringMatching(/^ {2}-h, --help +print this help$/));
}

/** What a wrong command line must give: exit 2, nothing on stdout, one line on stderr pointing to --help. */
function expectOneLinePointingToHelp(result: RunResult, name: string, problem: string) {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(`${name}: ${problem}. For usage, run: node dist/cli/${name}.js --help\n`);
}

describe.each(COMMANDS)('$name', ({ name, script, lists }) => {
  it('when it is run with --help, then it prints its usage, arguments and options on stdout, exits 0 and creates no data directory', async () => {
    const dataDir = freshDataDir();

    const result = await runNode(script, ['--help'], { env: { DATA_DIR: dataDir } });

    expectUsage(result, `node dist/cli/${name}.js`, lists);
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('when -h comes after other arguments and the settings are malformed, then it still only prints the usage and exits 0', async () => {
    const dataDir = freshDataDir();
    const args: Record<typeof name, string[]> = {
      'register-user': ['alice', '--password-stdin', '-h'],
      users: ['delete', 'alice', '--yes', '-h'],
      tokens: ['create', 'alice', '--name', 'ci', '-h'],
      'move-install': ['--from-database', `file:${path.join(dataDir, 'app.db')}`, '-h', '--from-uploads', dataDir],
    };

    const result = await runNode(script, args[name], {
      env: { DATA_DIR: dataDir, SESSION_SECRET: 'too-short' },
      input: `${PASSWORD}\n`,
    });

    expectUsage(result, `node dist/cli/${name}.js`, lists);
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('when it is given an unknown option, then it exits 2 with one line on stderr naming the option and pointing to --help, and creates nothing', async () => {
    const dataDir = freshDataDir();
    const args: Record<typeof name, string[]> = {
      'register-user': ['alice', '--frobnicate'],
      users: ['list', '--frobnicate'],
      tokens: ['list', 'alice', '--frobnicate'],
      'move-install': ['--from-database', 'file:/old/app.db', '--from-uploads', '/old/uploads', '--frobnicate'],
    };

    const result = await runNode(script, args[name], { env: { DATA_DIR: dataDir }, input: `${PASSWORD}\n` });

    expectOneLinePointingToHelp(result, name, "Unknown option '--frobnicate'");
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});

describe('a wrong command line', () => {
  it.each([
    ['register-user', [], 'Missing the <username>'],
    ['register-user', ['alice', 'bob'], 'Expected one <username>, got 2'],
    [
      'users',
      [],
      'Missing the command (list, add, admin, passwd, disable, enable, delete, quota, reset-2fa, link-oidc, unlink-oidc, invite, audit)',
    ],
    ['users', ['frobnicate'], 'Unknown command "frobnicate"'],
    ['users', ['enable'], 'Expected disable|enable <username> [--json]'],
    ['tokens', ['explode', 'alice'], 'Unknown command "explode"'],
    ['tokens', ['create', 'alice'], 'Expected create <username> --name <name> [--expires-in-days <days>] [--json]'],
    ['tokens', ['list', 'alice', '--name'], "Option '--name <value>' argument missing"],
    ['move-install', ['--from-uploads', '/old/uploads'], '--from-database is missing'],
  ] as const)(
    'when %s is run with %j, then it exits 2 with one line saying what is wrong and pointing to --help',
    async (name, args, problem) => {
      const script = COMMANDS.find((command) => command.name === name)!.script;
      const dataDir = freshDataDir();

      const result = await runNode(script, [...args], { env: { DATA_DIR: dataDir }, input: `${PASSWORD}\n` });

      expectOneLinePointingToHelp(result, name, problem);
      expect(fs.existsSync(dataDir)).toBe(false);
    },
  );
});

describe('the end of the options', () => {
  it('when register-user is given a name after --, then it is the username, not an unknown option, as for the other commands', async () => {
    const dataDir = freshDataDir();
    const result = await runNode(CLI_JS, ['--password-stdin', '--', '--x'], {
      env: { DATA_DIR: dataDir },
      input: `${PASSWORD}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const again = await runNode(CLI_JS, ['--password-stdin', '--', '--x'], {
      env: { DATA_DIR: dataDir },
      input: `${PASSWORD}\n`,
    });
    // The same name again: taken, which shows the first run made the user "--x".
    expect(again.code).not.toBe(0);
    expect(again.stderr.trim()).toMatch(/^register-user: Username is already taken/);
  });
});

describe('on a clone, through npm (README)', () => {
  /** `npm run -s <script> -- <args>` in the checkout, as the README shows it. */
  function npmRun(script: string, args: string[], env: Record<string, string>): Promise<RunResult> {
    return runCommand('npm', ['run', '-s', script, '--', ...args], {
      env: { ...env, npm_config_update_notifier: 'false' },
      timeoutMs: 80_000,
    });
  }

  it('when `npm run users -- --help` is run, then the usage names the command that way, and an unknown option points to it', async () => {
    const dataDir = freshDataDir();

    const help = await npmRun('users', ['--help'], { DATA_DIR: dataDir });
    const wrong = await npmRun('users', ['list', '--frobnicate'], { DATA_DIR: dataDir });

    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout.split('\n')[0]).toBe('Usage: npm run users -- list [--json]');
    expect(help.stdout).toContain('       npm run users -- quota <username> <size|none|default> [--json]\n');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("users: Unknown option '--frobnicate'. For usage, run: npm run users -- --help\n");
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
