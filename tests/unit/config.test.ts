// Configuration (.env.example): loadConfig and the start-up's provision in-process for every
// rule, and the built server process for what the operator sees (one stderr line, no stack, the
// exit code, the warnings).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { provision } from '../../server/provision';
import { tempDir } from '../helpers/app';
import {
  registerUserCli,
  runNode,
  SERVER_JS,
  startServerProcess,
  type RunResult,
  type ServerProcess,
} from '../helpers/process';

// Child processes (node start-up, bcrypt) are slow on a busy 2-core machine.
vi.setConfig({ testTimeout: 90_000 });

const SECRET = 's'.repeat(32);

/** The configuration as the service starts with it: checked, then its folders and secret made on disk. */
function start(env: Record<string, string | undefined>) {
  return provision(loadConfig(env));
}

/** The start over a fresh DATA_DIR (never ./data) with a valid secret, plus `env`. */
function load(env: Record<string, string | undefined> = {}) {
  return start({ DATA_DIR: tempDir('fs-config-'), SESSION_SECRET: SECRET, ...env });
}

function configErrorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    load(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`the start accepted ${JSON.stringify(env)}`);
}

/** A regular file: any directory "under" it can never be created. */
function pathUnderAFile(): string {
  const file = path.join(tempDir('fs-config-'), 'regular-file');
  fs.writeFileSync(file, 'x');
  return path.join(file, 'data');
}

describe('defaults', () => {
  it('when nothing but DATA_DIR is set, then the documented defaults apply', () => {
    const dataDir = tempDir('fs-config-');

    const config = loadConfig({ DATA_DIR: dataDir, SESSION_SECRET: SECRET });

    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.dataDir).toBe(dataDir);
    expect(config.uploadDir).toBe(path.join(dataDir, 'uploads'));
    expect(config.database).toEqual({ dialect: 'sqlite', path: path.join(dataDir, 'app.db') });
    expect(config.maxUploadBytes).toBe(1073741824);
    expect(config.sessionTtlSeconds).toBe(2592000);
    expect(config.secureCookies).toBe(false);
    expect(config.logLevel).toBe('info');
    expect(config.trustProxy).toBeUndefined();
    expect(config.startupWarnings).toEqual([]);
  });

  it('when PORT is set and BASE_URL is not, then BASE_URL follows the port', () => {
    expect(load({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
  });

  it('when BASE_URL ends with a slash (or several), then it is ignored', () => {
    expect(load({ BASE_URL: 'https://files.example.com/' }).baseUrl).toBe('https://files.example.com');
    expect(load({ BASE_URL: 'https://example.com/share//' }).baseUrl).toBe('https://example.com/share');
  });

  it('when BASE_URL is https, then cookies are Secure', () => {
    expect(load({ BASE_URL: 'https://files.example.com' }).secureCookies).toBe(true);
    expect(load({ BASE_URL: 'http://files.example.com' }).secureCookies).toBe(false);
  });

  it('when UPLOAD_DIR and DATABASE_URL are set, then they are used and created', () => {
    const root = tempDir('fs-config-');
    const config = load({
      UPLOAD_DIR: path.join(root, 'up', 'loads'),
      DATABASE_URL: `file:${path.join(root, 'db', 'x.db')}`,
    });

    expect(config.uploadDir).toBe(path.join(root, 'up', 'loads'));
    expect(config.database).toEqual({ dialect: 'sqlite', path: path.join(root, 'db', 'x.db') });
    expect(fs.statSync(path.join(root, 'up', 'loads')).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(root, 'db')).isDirectory()).toBe(true);
  });

  it('when TRUST_PROXY is set, then it is passed on (true, a hop count, or a list)', () => {
    expect(load({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(load({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(load({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
  });
});

describe('SESSION_SECRET', () => {
  it('when it is set, then the key is the UTF-8 bytes of the string', () => {
    const secret = 'ünïcödé-secret-that-is-long-enough-✓';

    expect(Buffer.from(load({ SESSION_SECRET: secret }).sessionSecret).toString('utf8')).toBe(secret);
  });

  it('when it is exactly 32 characters, then it is accepted; 31 is refused naming SESSION_SECRET', () => {
    expect(load({ SESSION_SECRET: 'x'.repeat(32) }).sessionSecret).toHaveLength(32);
    expect(configErrorOf({ SESSION_SECRET: 'x'.repeat(31) }).message).toContain('SESSION_SECRET');
  });

  it('when it is 16 emoji (32 UTF-16 units), then it is refused as shorter than 32 characters; 32 emoji are accepted as their UTF-8 bytes', () => {
    const sixteen = '🔑'.repeat(16);
    expect(sixteen).toHaveLength(32);

    expect(configErrorOf({ SESSION_SECRET: sixteen }).message).toBe(
      'SESSION_SECRET must be at least 32 characters long',
    );
    const key = load({ SESSION_SECRET: '🔑'.repeat(32) }).sessionSecret;
    expect(Buffer.from(key).equals(Buffer.from('🔑'.repeat(32), 'utf8'))).toBe(true);
    expect(key).toHaveLength(128);
  });

  it('when the stored secret file holds 16 emoji (32 UTF-16 units), then loading stops naming SESSION_SECRET: fewer than 32 characters', () => {
    const dataDir = tempDir('fs-config-');
    fs.writeFileSync(path.join(dataDir, 'session-secret'), `${'🔑'.repeat(16)}\n`);

    expect(configErrorOf({ DATA_DIR: dataDir, SESSION_SECRET: undefined }).message).toMatch(
      /^SESSION_SECRET: .* holds fewer than 32 characters/,
    );
  });

  it('when it is unset, then a secret is generated into $DATA_DIR/session-secret (mode 0600), a warning is given, and the next load reuses it', () => {
    const dataDir = tempDir('fs-config-');

    const first = start({ DATA_DIR: dataDir });
    const file = path.join(dataDir, 'session-secret');

    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.startupWarnings.some((warning) => warning.includes('SESSION_SECRET'))).toBe(true);
    const second = start({ DATA_DIR: dataDir });
    expect(Buffer.from(second.sessionSecret).equals(Buffer.from(first.sessionSecret))).toBe(true);
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('session-secret'))).toEqual(['session-secret']);
  });

  it('when two data dirs generate secrets, then the secrets differ', () => {
    const a = start({ DATA_DIR: tempDir('fs-config-') }).sessionSecret;
    const b = start({ DATA_DIR: tempDir('fs-config-') }).sessionSecret;

    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('when the stored secret file is empty (e.g. left by a crash), then loading stops with a ConfigError naming SESSION_SECRET', () => {
    const dataDir = tempDir('fs-config-');
    fs.writeFileSync(path.join(dataDir, 'session-secret'), '');

    expect(configErrorOf({ DATA_DIR: dataDir, SESSION_SECRET: undefined }).message).toMatch(/SESSION_SECRET/);
  });
});

describe('JWT_EXPIRES_IN (deprecated)', () => {
  it.each([
    ['3600', 3600],
    ['90s', 90],
    ['45m', 2700],
    ['12h', 43200],
    ['30d', 2592000],
    ['2m', 120],
    ['3650d', 315360000],
    ['315360000', 315360000],
  ])('when it is %s, then sessions last %i seconds and a deprecation warning names it', (value, seconds) => {
    const config = load({ JWT_EXPIRES_IN: value });

    expect(config.sessionTtlSeconds).toBe(seconds);
    expect(config.startupWarnings.filter((warning) => warning.includes('JWT_EXPIRES_IN'))).toHaveLength(1);
  });

  // Such lifetimes passed the start, and then every login answered 500: the session's expiry was
  // past what a date can hold.
  it.each(['100000000d', '99999999999999999999', '3651d', '315360001'])(
    'when it is %s (longer than 10 years), then loading stops with one line naming JWT_EXPIRES_IN and the bound',
    (value) => {
      expect(configErrorOf({ JWT_EXPIRES_IN: value }).message).toBe(
        `JWT_EXPIRES_IN must be at most 3650d (10 years), got "${value}"`,
      );
    },
  );
});

describe('MAX_EXPIRY and DEFAULT_EXPIRY', () => {
  it('when neither is set, then links never expire by default and may live forever', () => {
    expect(load().shareExpiry).toEqual({ maxSeconds: null, defaultSeconds: null });
  });

  it('when only MAX_EXPIRY is set, then it is also the default', () => {
    expect(load({ MAX_EXPIRY: '30d' }).shareExpiry).toEqual({ maxSeconds: 2592000, defaultSeconds: 2592000 });
  });

  it('when both are set, then each is as given', () => {
    expect(load({ MAX_EXPIRY: '30d', DEFAULT_EXPIRY: '12h' }).shareExpiry).toEqual({
      maxSeconds: 2592000,
      defaultSeconds: 43200,
    });
    expect(load({ DEFAULT_EXPIRY: '3600' }).shareExpiry).toEqual({ maxSeconds: null, defaultSeconds: 3600 });
  });

  it('when one is 100 years, then it is taken: an upload may ask for as long itself', () => {
    expect(load({ MAX_EXPIRY: '36500d' }).shareExpiry).toEqual({ maxSeconds: 3153600000, defaultSeconds: 3153600000 });
  });

  // A default past what a date can hold would have made every upload fail on its expiry.
  it.each([
    ['MAX_EXPIRY', '100000000d'],
    ['DEFAULT_EXPIRY', '99999999999999999999'],
    ['DEFAULT_EXPIRY', '36501d'],
  ])(
    'when %s is %s (longer than 100 years), then loading stops with one line naming it and the bound',
    (name, value) => {
      expect(configErrorOf({ [name]: value }).message).toBe(
        `${name} must be at most 36500d (100 years), got "${value}"`,
      );
    },
  );
});

describe('MAX_UPLOAD_BYTES and DEFAULT_QUOTA_BYTES', () => {
  it.each([
    ['10MB', 10_000_000],
    ['2 GB', 2_000_000_000],
    ['500MiB', 500 * 1024 ** 2],
    ['1G', 1024 ** 3],
    ['1.5kb', 1500],
  ])('when one is %s, then it is %d bytes: a number of bytes or a size in either unit system', (text, bytes) => {
    const config = load({ MAX_UPLOAD_BYTES: text, DEFAULT_QUOTA_BYTES: text });

    expect(config.maxUploadBytes).toBe(bytes);
    expect(config.defaultQuotaBytes).toBe(bytes);
  });

  it('when MAX_UPLOAD_BYTES is not a size, then loading stops with one line saying what it takes', () => {
    expect(configErrorOf({ MAX_UPLOAD_BYTES: '10XB' }).message).toBe(
      'MAX_UPLOAD_BYTES must be a number of bytes or a size such as 500MB or 1GiB, got "10XB"',
    );
  });
});

describe('malformed values', () => {
  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '-1' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '-5' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '0' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '1e9' }],
    ['MAX_UPLOAD_BYTES', { MAX_UPLOAD_BYTES: '10XB' }],
    ['DEFAULT_QUOTA_BYTES', { DEFAULT_QUOTA_BYTES: 'lots' }],
    ['DEFAULT_QUOTA_BYTES', { DEFAULT_QUOTA_BYTES: '99999999999TB' }],
    ['SESSION_SECRET', { SESSION_SECRET: 'short' }],
    ['BASE_URL', { BASE_URL: 'ftp://x' }],
    ['BASE_URL', { BASE_URL: 'not a url' }],
    ['JWT_EXPIRES_IN', { JWT_EXPIRES_IN: 'soon' }],
    ['JWT_EXPIRES_IN', { JWT_EXPIRES_IN: '0' }],
    ['JWT_EXPIRES_IN', { JWT_EXPIRES_IN: '12w' }],
    ['MAX_EXPIRY', { MAX_EXPIRY: 'a week' }],
    ['DEFAULT_EXPIRY', { DEFAULT_EXPIRY: '0' }],
    ['DEFAULT_EXPIRY', { MAX_EXPIRY: '1d', DEFAULT_EXPIRY: '2d' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'garbage!' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'loopback, 10.0.0.0/99' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://db/app' }],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://db' }],
    [
      'SESSION_SECRET',
      { DATABASE_URL: 'postgres://user:pw@db:5432/app', SESSION_SECRET: undefined as unknown as string },
    ],
  ] as [string, Record<string, string>][])(
    'when %s is %j, then loading stops with a one-line ConfigError naming it',
    (name, env) => {
      const error = configErrorOf(env);

      expect(error.message).toContain(name);
      expect(error.message).not.toContain('\n');
    },
  );

  it.each(['DATA_DIR', 'UPLOAD_DIR'])(
    'when %s is a path under a regular file, then loading stops with a ConfigError naming it',
    (name) => {
      const error = configErrorOf({ [name]: pathUnderAFile() });

      expect(error.message).toContain(name);
    },
  );
});

describe('the server process with a malformed value', () => {
  const cases: [string, () => Record<string, string>][] = [
    ['PORT', () => ({ PORT: 'abc' })],
    ['MAX_UPLOAD_BYTES', () => ({ MAX_UPLOAD_BYTES: '-5' })],
    ['SESSION_SECRET', () => ({ SESSION_SECRET: 'too-short' })],
    ['DATA_DIR', () => ({ DATA_DIR: pathUnderAFile() })],
    ['BASE_URL', () => ({ BASE_URL: 'ftp://x' })],
    ['JWT_EXPIRES_IN', () => ({ JWT_EXPIRES_IN: 'soon' })],
    ['JWT_EXPIRES_IN', () => ({ JWT_EXPIRES_IN: '100000000d' })],
  ];

  it.each(cases)(
    'when %s is malformed, then `node dist/server/index.js` exits non-zero with one stderr line naming it and no stack',
    async (name, env) => {
      const result = await runNode(SERVER_JS, [], { env: { DATA_DIR: tempDir('fs-config-'), PORT: '0', ...env() } });

      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      const lines = result.stderr.split('\n').filter(Boolean);
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toContain(name);
      expect(result.stderr).not.toContain('    at ');
      expect(result.stdout).toBe('');
    },
  );

  it('when the stored session secret is empty, then the server exits non-zero with one line naming SESSION_SECRET', async () => {
    const dataDir = tempDir('fs-config-');
    fs.writeFileSync(path.join(dataDir, 'session-secret'), '');

    const result = await runNode(SERVER_JS, [], { env: { DATA_DIR: dataDir, PORT: '0' } });

    expect(result.code).not.toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain('SESSION_SECRET');
  });
});

describe('a folder that cannot be used, named by the variable the operator set', () => {
  // /sys and /proc refuse new entries even to root (the tests run as root, whom file modes do
  // not stop); a path under a regular file can never be a folder.
  const regularFile = () => path.dirname(pathUnderAFile());
  const PATH_VARIABLES = ['DATA_DIR', 'UPLOAD_DIR', 'DATABASE_URL', 'SESSION_SECRET'];
  const cases: [string, string, () => Record<string, string>][] = [
    [
      'DATA_DIR is /sys/kernel (its uploads folder cannot be made)',
      'DATA_DIR',
      () => ({ DATA_DIR: '/sys/kernel', SESSION_SECRET: SECRET }),
    ],
    [
      'DATA_DIR is /proc (its uploads folder cannot be made)',
      'DATA_DIR',
      () => ({ DATA_DIR: '/proc', SESSION_SECRET: SECRET }),
    ],
    ['DATA_DIR is a regular file', 'DATA_DIR', () => ({ DATA_DIR: regularFile() })],
    [
      'DATA_DIR is /sys/kernel and UPLOAD_DIR is elsewhere (the generated secret cannot be written)',
      'DATA_DIR',
      () => ({ DATA_DIR: '/sys/kernel', UPLOAD_DIR: tempDir('fs-config-') }),
    ],
    [
      'DATA_DIR is a regular file and UPLOAD_DIR is elsewhere (the generated secret cannot be read)',
      'DATA_DIR',
      () => ({ DATA_DIR: regularFile(), UPLOAD_DIR: tempDir('fs-config-') }),
    ],
    [
      'DATA_DIR is /sys/kernel and only the database is left in it (it cannot be opened)',
      'DATA_DIR',
      () => ({ DATA_DIR: '/sys/kernel', UPLOAD_DIR: tempDir('fs-config-'), SESSION_SECRET: SECRET }),
    ],
    [
      'UPLOAD_DIR is set to a folder under /sys/kernel',
      'UPLOAD_DIR',
      () => ({ DATA_DIR: tempDir('fs-config-'), UPLOAD_DIR: '/sys/kernel/uploads', SESSION_SECRET: SECRET }),
    ],
    [
      'DATABASE_URL is set to a file in /sys/kernel',
      'DATABASE_URL',
      () => ({ DATA_DIR: tempDir('fs-config-'), DATABASE_URL: 'file:/sys/kernel/app.db', SESSION_SECRET: SECRET }),
    ],
  ];

  /** One line on stderr naming `variable` and no other variable that places a file; no stack. */
  function expectOneLineNaming(result: RunResult, variable: string) {
    expect(result.code, result.stderr).not.toBe(0);
    expect(result.code).not.toBeNull();
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain(variable);
    for (const other of PATH_VARIABLES.filter((name) => name !== variable)) expect(lines[0]).not.toContain(other);
    expect(result.stderr).not.toContain('    at ');
  }

  it.each(cases)(
    'when %s, then `node dist/server/index.js` stops with one line naming %s',
    async (_label, variable, env) => {
      const result = await runNode(SERVER_JS, [], { env: { PORT: '0', ...env() } });

      expectOneLineNaming(result, variable);
      expect(result.stdout).toBe('');
    },
  );

  it.each(cases)(
    'when %s, then `node dist/cli/register-user.js` fails with one line naming %s',
    async (_label, variable, env) => {
      const result = await registerUserCli(['someone', '--password-stdin'], {
        env: env(),
        input: 'a perfectly fine password\n',
      });

      expectOneLineNaming(result, variable);
    },
  );
});

describe('the server process with JWT_EXPIRES_IN set', () => {
  let server: ServerProcess | undefined;
  afterEach(() => server?.kill());

  it('when JWT_EXPIRES_IN=12h, then exactly one warning naming JWT_EXPIRES_IN is logged at start, and SIGTERM exits 0', async () => {
    server = await startServerProcess({
      DATA_DIR: tempDir('fs-config-'),
      SESSION_SECRET: SECRET,
      JWT_EXPIRES_IN: '12h',
    });

    const entries = server.stdoutLines().map((line) => JSON.parse(line));
    const deprecations = entries.filter((entry) => String(entry.msg).includes('JWT_EXPIRES_IN'));
    expect(deprecations).toHaveLength(1);
    expect(deprecations[0].level).toBe(40);
    expect(deprecations[0].msg).toMatch(/deprecated/i);
    expect(await server.stop()).toBe(0);
  });

  it('when JWT_EXPIRES_IN is unset, then no such warning is logged', async () => {
    server = await startServerProcess({ DATA_DIR: tempDir('fs-config-'), SESSION_SECRET: SECRET });

    expect(server.stdoutLines().join('\n')).not.toContain('JWT_EXPIRES_IN');
    expect(await server.stop()).toBe(0);
  });
});

describe('DATABASE_URL for PostgreSQL', () => {
  it('when DATABASE_URL is postgres://…, then the database is PostgreSQL at that URL', () => {
    const config = load({ DATABASE_URL: 'postgres://files:secret@db.internal:5432/files' });
    expect(config.database).toEqual({ dialect: 'postgresql', url: 'postgres://files:secret@db.internal:5432/files' });
  });

  it('when DATABASE_URL is PostgreSQL and SESSION_SECRET is unset, then loading stops: instances must share the secret', () => {
    const error = configErrorOf({ DATABASE_URL: 'postgresql://files@db/files', SESSION_SECRET: undefined });
    expect(error.message).toBe(
      'SESSION_SECRET must be set when DATABASE_URL is PostgreSQL: every instance must use the same one',
    );
  });

  it('when a malformed URL carries a password, then the error does not show it', () => {
    const error = configErrorOf({ DATABASE_URL: 'mysql://files:hunter2@db/files' });
    expect(error.message).not.toContain('hunter2');
  });
});
