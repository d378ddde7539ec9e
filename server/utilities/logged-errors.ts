// What a log line, or a one-line failure on stderr, keeps of an error: never a value a query
// bound (ADR 0059). A database driver's error carries them: MikroORM writes a statement's values
// into its SQL text and knex puts that text at the head of the error's message ("insert into
// `collections` (…) values (…, '$2b$10$…') - SQLITE_ERROR: …"), PostgreSQL's `detail` quotes a
// row ("Key (stored_name)=(…) already exists"), and knex's own errors keep `bindings`. Of such
// an error the log keeps its class, its codes, the names of what it concerns, and the SQL with
// every literal made `?`; never its other fields.
import { DriverException } from '@mikro-orm/core';
import { stdSerializers } from 'pino';

/** The fields of a driver's error that name what failed, never what was in it. */
const NAMING_FIELDS = [
  'code',
  'errno',
  'sqlState',
  'severity',
  'routine',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
] as const;

/** How deep a chain of causes is followed. */
const MAX_DEPTH = 5;

interface DriverFields {
  code?: unknown;
  severity?: unknown;
  routine?: unknown;
  sql?: unknown;
  bindings?: unknown;
  parameters?: unknown;
}

/** Whether `error` came from the database: MikroORM's wrapper, or pg's, sqlite3's or knex's own. */
function isDriverError(error: Error): boolean {
  if (error instanceof DriverException) return true;
  const fields = error as Error & DriverFields;
  if (typeof fields.code === 'string' && fields.code.startsWith('SQLITE_')) return true;
  // pg's DatabaseError: the server's answer, with its severity and the routine that raised it.
  if (typeof fields.severity === 'string' && typeof fields.routine === 'string') return true;
  return 'sql' in fields || 'bindings' in fields || 'parameters' in fields;
}

/** pino's serializer for `err`: its standard one, once every driver error in the chain is cut down. */
export function errorForLog(error: unknown): unknown {
  return stdSerializers.err(withoutQueryValues(error, 0) as Error);
}

/**
 * The first line of what went wrong, for people (a CLI's failure, an outage's reason): of a driver
 * error, what its driver said without values, never the statement.
 */
export function errorSummary(error: unknown): string {
  if (!(error instanceof Error)) return firstLine(String(error));
  if (!isDriverError(error)) return firstLine(error.message);
  const { sql, said } = splitMessage(error.message);
  return firstLine(said ? withoutQuotedValues(error, said, knownNames(error, sql)) : sqlWithoutValues(sql ?? ''));
}

/** `error` itself when nothing in it is a driver error; otherwise a copy with each driver error cut down. */
function withoutQueryValues(error: unknown, depth: number): unknown {
  if (!(error instanceof Error) || depth > MAX_DEPTH) return error;
  if (isDriverError(error)) return driverErrorForLog(error);
  let copy: Record<string, unknown> | null = null;
  const record = error as unknown as Record<string, unknown>;
  // `cause` is often not enumerable (new Error(message, { cause })).
  for (const key of new Set([...Object.keys(error), 'cause'])) {
    const inner = record[key];
    const safe = Array.isArray(inner)
      ? inner.map((item) => withoutQueryValues(item, depth + 1))
      : withoutQueryValues(inner, depth + 1);
    const changed = Array.isArray(inner) ? (safe as unknown[]).some((item, i) => item !== inner[i]) : safe !== inner;
    if (!changed) continue;
    copy ??= Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error));
    (copy as Record<string, unknown>)[key] = safe;
  }
  return copy ?? error;
}

/** A driver error with its class and naming fields, its message and stack without values. */
function driverErrorForLog(error: Error): Error {
  const fields = error as unknown as Record<string, unknown>;
  const { sql, said } = splitMessage(error.message);
  const names = knownNames(error, sql);
  const message = [sql === null ? '' : sqlWithoutValues(sql), said ? withoutQuotedValues(error, said, names) : '']
    .filter((part) => part !== '')
    .join(' - ');
  const safe = Object.create(Object.getPrototypeOf(error)) as Error & Record<string, unknown>;
  safe.name = error.name;
  safe.message = message;
  safe.stack = `${error.name}: ${message}\n${framesOf(error)}`;
  for (const field of NAMING_FIELDS) if (fields[field] !== undefined) safe[field] = fields[field];
  if (typeof fields.sql === 'string') safe.sql = sqlWithoutValues(fields.sql);
  return safe;
}

/** The stack's frames ("    at …") alone: its head repeats the message. */
function framesOf(error: Error): string {
  const stack = error.stack ?? '';
  const head = `${error.name}: ${error.message}`;
  const frames = stack.startsWith(head) ? stack.slice(head.length) : stack;
  return frames
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

const STATEMENT_START =
  /^\s*(select|insert|update|delete|with|create|alter|drop|begin|commit|rollback|savepoint|release|pragma|set|explain|lock)\b/i;

/**
 * knex's "<SQL> - <what the driver said>" taken apart, and of what the driver said its first line
 * only (MikroORM adds PostgreSQL's detail and hint on lines of their own: "\n - detail: Key
 * (…)=(…) already exists"). The statement ends at the last " - " outside its quotes: an
 * arithmetic " - " goes with the SQL, where every value is hidden. A message that starts with no
 * statement is all the driver's.
 */
function splitMessage(message: string): { sql: string | null; said: string } {
  if (!STATEMENT_START.test(message)) return { sql: null, said: firstLine(message) };
  let split = -1;
  let i = 0;
  while (i < message.length) {
    const char = message[i];
    if (char === "'" || char === '"' || char === '`') i = endOfQuoted(message, i);
    else if (message.startsWith('\n - ', i)) break;
    else {
      if (message.startsWith(' - ', i)) split = i;
      i++;
    }
  }
  if (split === -1) return { sql: message.slice(0, i), said: '' };
  return { sql: message.slice(0, split), said: firstLine(message.slice(split + 3, i)) };
}

function firstLine(text: string): string {
  return text.split('\n')[0];
}

/**
 * Where the quoted text starting at `start` ends (past its closing quote): a quote is escaped by
 * doubling it, and a backslash escapes the next character in PostgreSQL's E'…' strings.
 */
function endOfQuoted(sql: string, start: number): number {
  const quote = sql[start];
  const backslashEscapes = quote === "'" && /[Ee]$/.test(sql.slice(Math.max(0, start - 1), start));
  let i = start + 1;
  while (i < sql.length) {
    if (backslashEscapes && sql[i] === '\\') i += 2;
    else if (sql[i] === quote && sql[i + 1] === quote) i += 2;
    else if (sql[i] === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

/** The SQL with each string literal (E'…', X'…' with it) and each number made `?`; names in quotes kept. */
function sqlWithoutValues(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    if (char === "'") {
      // A literal's prefix letter (E'…', X'…') goes with it.
      if (/[EeXx]$/.test(out) && !/[A-Za-z0-9_$][EeXx]$/.test(out)) out = out.slice(0, -1);
      out += '?';
      i = endOfQuoted(sql, i);
    } else if (char === '"' || char === '`') {
      const end = endOfQuoted(sql, i);
      out += sql.slice(i, end);
      i = end;
    } else if (/[0-9]/.test(char) && !/[A-Za-z0-9_$.]$/.test(out)) {
      const number = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(sql.slice(i))?.[0] ?? char;
      out += '?';
      i += number.length;
    } else {
      out += char;
      i++;
    }
  }
  return out;
}

/**
 * PostgreSQL's classes of connection faults (08), authorization (28), unknown database (3D) and
 * shutdown (57P): they concern no statement, and what they quote is a user or database name.
 */
const CONNECTION_CLASSES = /^(08|28|3D|57P)/;

/** The names an error's text may quote: those in its SQL's quotes and its naming fields. */
function knownNames(error: Error, sql: string | null): Set<string> {
  const names = new Set<string>();
  const fields = error as unknown as Record<string, unknown>;
  for (const field of ['schema', 'table', 'column', 'constraint', 'dataType'])
    if (typeof fields[field] === 'string') names.add(fields[field] as string);
  // The names quoted in the SQL, read as the SQL reads: a string literal may hold quotes too.
  const text = sql ?? '';
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char !== "'" && char !== '"' && char !== '`') {
      i++;
      continue;
    }
    const end = endOfQuoted(text, i);
    if (char !== "'") names.add(text.slice(i + 1, end - 1).replaceAll(char + char, char));
    i = end;
  }
  return names;
}

/**
 * What the driver said, up to the first quoted text that is not one of the known names: a
 * database quotes values too ('invalid input syntax for type integer: "…"'), with no escaping to
 * tell where they end, so nothing after one is kept.
 */
function withoutQuotedValues(error: Error, said: string, names: Set<string>): string {
  const code = (error as DriverFields).code;
  if (typeof code === 'string' && CONNECTION_CLASSES.test(code)) return said;
  let i = 0;
  while (i < said.length) {
    const char = said[i];
    // An apostrophe inside a word ("can't") opens nothing.
    const opens = char === '"' || (char === "'" && !/[A-Za-z]/.test(said[i - 1] ?? ''));
    if (!opens) {
      i++;
      continue;
    }
    const close = said.indexOf(char, i + 1);
    if (close !== -1 && names.has(said.slice(i + 1, close))) {
      i = close + 1;
      continue;
    }
    return `${said.slice(0, i)}${char}…`;
  }
  return said;
}
