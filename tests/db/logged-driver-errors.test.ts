// No log line carries a value a query bound (ADR 0059): real failures on real databases, through
// MikroORM (which writes the values into its SQL, and PostgreSQL's detail into the message) and
// through the service's direct statements, logged by the service's own logger.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { failureLine } from '../../cli/cli-support';
import type { DirectSql } from '../../server/db/direct-sql';
import type { Orm } from '../../server/db/orm';
import { DependencyUnavailableError } from '../../server/utilities/errors';
import { createLogger } from '../../server/utilities/logger';
import { directSqlWithOneUser } from '../helpers/databases';

const PASSWORD_HASH = '$2b$10$Qm9vdHMgYW5kIGNhdHMgYW5kIGJvb3RzIGFuZCBjYXRz';
const INSERT_FILE =
  'insert into "files" ("id", "user_id", "original_name", "mime_type", "size", "stored_name", "created_at", "downloads") values (?, ?, ?, ?, ?, ?, ?, 0)';

let orm: Orm | undefined;
let sql: DirectSql | undefined;

afterEach(async () => {
  await sql?.close();
  await orm?.close();
  orm = undefined;
  sql = undefined;
});

/** The line the service's logger writes for a failed request with `err`. */
function loggedLine(err: unknown): string {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  createLogger('info', destination).error({ err, path: '/api/v1/collections' }, 'request failed');
  return chunks.join('');
}

/** The error `attempt` rejects with. */
async function failureOf(attempt: Promise<unknown>): Promise<Error> {
  const error = await attempt.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof Error)) throw new Error('the statement did not fail');
  return error;
}

describe.each(['sqlite', 'postgresql'] as const)('driver errors from %s, as logged', (dialect) => {
  async function open(): Promise<{ orm: Orm; sql: DirectSql }> {
    ({ orm, sql } = await directSqlWithOneUser(dialect));
    return { orm, sql };
  }

  it('when an insert through the ORM breaks a unique rule, then the line keeps the class, code and SQL with ? for every value, never the values nor the duplicate key', async () => {
    const { orm } = await open();
    const error = await failureOf(
      orm.em.fork().insert('User', {
        id: 'u2',
        username: 'Duplicate-Name',
        usernameKey: 'u1',
        passwordHash: PASSWORD_HASH,
        createdAt: new Date(),
      }),
    );
    // What the driver hands over does carry them: the message (and PostgreSQL's detail).
    expect(JSON.stringify({ ...error, message: error.message })).toContain(PASSWORD_HASH);

    const line = loggedLine(error);
    const { err } = JSON.parse(line) as { err: Record<string, unknown> };
    expect(err.type).toBe('UniqueConstraintViolationException');
    expect(err.code).toBe(dialect === 'sqlite' ? 'SQLITE_CONSTRAINT' : '23505');
    expect(err.message).toMatch(/^insert into .users. \(.*\) values \(\?, \?, \?, \?, \?\)/);
    expect(err.message).toMatch(dialect === 'sqlite' ? /users\.username_key$/ : /"users_username_key_unique"$/);
    if (dialect === 'postgresql')
      expect(err).toMatchObject({ table: 'users', constraint: 'users_username_key_unique' });
    expect(err.stack).toMatch(/\n\s+at /);
    for (const value of [PASSWORD_HASH, 'Duplicate-Name', "'u1'", '(u1)', 'u2']) expect(line).not.toContain(value);
    expect(line).not.toMatch(/detail|Key \(/);
  });

  it('when a NUL goes into a text column through the ORM, then the line holds neither that text nor the rest of the row', async () => {
    const { orm } = await open();
    const error = await failureOf(
      orm.em.fork().insert('Collection', {
        id: 'collection-of-u1',
        userId: 'u1',
        title: 'Holiday\u0000plans',
        passwordHash: PASSWORD_HASH,
        createdAt: new Date(),
        downloads: 0,
        expiresAt: null,
        maxDownloads: null,
      }),
    );
    expect(error.message).toContain(PASSWORD_HASH);

    const line = loggedLine(error);
    const { err } = JSON.parse(line) as { err: Record<string, unknown> };
    expect(err.type).toBe('DriverException');
    expect(err.message).toMatch(/^insert into .collections./);
    for (const value of [PASSWORD_HASH, 'Holiday', 'plans', 'collection-of-u1', "'u1'"])
      expect(line).not.toContain(value);
  });

  it('when such an error is the cause of another (an outage), or becomes a one-line failure (the CLI’s), then no value shows there either', async () => {
    const { orm } = await open();
    const error = await failureOf(
      orm.em.fork().insert('User', {
        id: 'u2',
        username: 'Duplicate-Name',
        usernameKey: 'u1',
        passwordHash: PASSWORD_HASH,
        createdAt: new Date(),
      }),
    );
    const wrapped = [
      new Error('upload not recorded', { cause: error }),
      new DependencyUnavailableError('database', error),
    ];
    for (const outer of wrapped) {
      const line = loggedLine(outer);
      expect(line).toContain(outer.message);
      expect(line).not.toContain(PASSWORD_HASH);
      expect(line).not.toContain('Duplicate-Name');
    }
    const cliLine = failureLine(error);
    expect(cliLine).toMatch(/^Unexpected error: /);
    expect(cliLine).toMatch(/unique/i);
    expect(cliLine).not.toContain(PASSWORD_HASH);
    expect(cliLine).not.toContain('insert into');
  });
});

describe('direct statements’ errors from postgresql, as logged', () => {
  it('when a direct statement fails on its values (a duplicate key, a date PostgreSQL quotes in its message), then the line holds none of them and no detail', async () => {
    ({ orm, sql } = await directSqlWithOneUser('postgresql'));
    const file = ['file-1', 'u1', 'tax-return.pdf', 'application/pdf', 1, 'Stored-Name-1.pdf', new Date()];
    await sql.change(INSERT_FILE, file);
    const duplicate = await failureOf(sql.change(INSERT_FILE, ['file-2', ...file.slice(1)] as never[]));
    expect(JSON.stringify(duplicate)).toContain('Stored-Name-1');
    const badDate = await failureOf(sql.change(INSERT_FILE, ['file-3', 'u1', 'x', 'y', 1, 'z', '31337-99-99 secret']));
    expect(badDate.message).toContain('secret');

    for (const [error, code] of [
      [duplicate, '23505'],
      [badDate, '22007'],
    ] as const) {
      const line = loggedLine(error);
      for (const value of ['tax-return', 'Stored-Name-1', 'file-2', '31337', 'secret'])
        expect(line).not.toContain(value);
      expect(line).not.toMatch(/detail|Key \(/);
      expect(JSON.parse(line).err.code).toBe(code);
    }
    expect(JSON.parse(loggedLine(duplicate)).err).toMatchObject({
      message: 'duplicate key value violates unique constraint "files_stored_name_unique"',
      constraint: 'files_stored_name_unique',
    });
  });
});
