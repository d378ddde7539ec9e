// The only reader of process.env (CONTRACT §1). Everything is validated once at start;
// a bad value throws a ConfigError whose message is one line naming the variable.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SESSION_TTL_SECONDS } from './auth/session-constants';
import { makeDirectories } from './make-directories';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Where the records live: a SQLite file (the embedded default) or a PostgreSQL server. */
export type DatabaseConfig = { readonly dialect: 'sqlite'; readonly path: string } | { readonly dialect: 'postgresql'; readonly url: string };

/** Where file content lives: a local folder (the embedded default) or an S3-compatible bucket. */
export type StorageConfig =
  | { readonly kind: 'disk'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly region: string;
      readonly endpoint?: string;
      readonly forcePathStyle: boolean;
      readonly accessKeyId?: string;
      readonly secretAccessKey?: string;
    };

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Public base address without a trailing slash. */
  readonly baseUrl: string;
  readonly dataDir: string;
  /** The local content folder (used when `storage` is the disk). */
  readonly uploadDir: string;
  readonly storage: StorageConfig;
  readonly database: DatabaseConfig;
  readonly sessionSecret: Uint8Array;
  readonly sessionTtlSeconds: number;
  /** Cookies get `Secure` when the public address is https. */
  readonly secureCookies: boolean;
  readonly maxUploadBytes: number;
  readonly trustProxy: boolean | number | string | undefined;
  readonly logLevel: LogLevel;
  /** Node's request timeout; 0 disables it so multi-GB uploads on slow links are not cut. */
  readonly requestTimeoutMs: number;
  /** A connection that sends and takes nothing for this long is closed (a stalled body). */
  readonly requestIdleTimeoutMs: number;
  /** Things worth telling the operator once the logger exists. */
  readonly startupWarnings: readonly string[];
}

/** Every variable the config reads; `.env.example` must document exactly these. */
export const CONFIG_VARIABLES = [
  'PORT',
  'HOST',
  'BASE_URL',
  'DATA_DIR',
  'UPLOAD_DIR',
  'DATABASE_URL',
  'SESSION_SECRET',
  'MAX_UPLOAD_BYTES',
  'TRUST_PROXY',
  'LOG_LEVEL',
  'REQUEST_TIMEOUT_MS',
  'REQUEST_IDLE_TIMEOUT_MS',
  'JWT_EXPIRES_IN',
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
] as const;

type Env = Record<string, string | undefined>;
/** A variable's value, as loadConfig's `read` gives it. */
type Read = (name: (typeof CONFIG_VARIABLES)[number], options?: { trim: boolean }) => string | undefined;

export function loadConfig(env: Env = process.env): Config {
  /** A variable's value; blank counts as unset. Trimmed unless its exact bytes matter. */
  const read = (name: (typeof CONFIG_VARIABLES)[number], options: { trim: boolean } = { trim: true }) => {
    const value = env[name];
    if (value === undefined || value.trim() === '') return undefined;
    return options.trim ? value.trim() : value;
  };
  const warnings: string[] = [];

  const port = parseInteger('PORT', read('PORT') ?? '3000', 0, 65535);
  const host = read('HOST') ?? '0.0.0.0';
  const baseUrl = parseBaseUrl(read('BASE_URL') ?? `http://localhost:${port}`);

  const dataDir = path.resolve(read('DATA_DIR') ?? './data');
  ensureWritableDir('DATA_DIR', dataDir);
  const uploadDir = path.resolve(read('UPLOAD_DIR') ?? path.join(dataDir, 'uploads'));
  const storage = parseStorage(read, uploadDir);
  const database = parseDatabaseUrl(read('DATABASE_URL') ?? `file:${path.join(dataDir, 'app.db')}`);
  if (storage.kind === 'disk') {
    ensureWritableDir('UPLOAD_DIR', uploadDir);
    refuseSharedUploadDir(uploadDir, dataDir, database);
  }

  // The secret's bytes are used exactly as given (CONTRACT §1).
  const secretText = read('SESSION_SECRET', { trim: false });
  let sessionSecret: Uint8Array;
  if (secretText === undefined && database.dialect === 'postgresql') {
    // Several instances share one PostgreSQL: each must sign sessions with the same key.
    throw new ConfigError('SESSION_SECRET must be set when DATABASE_URL is PostgreSQL: every instance must use the same one');
  }
  if (secretText !== undefined) {
    if (secretText.length < 32) {
      throw new ConfigError('SESSION_SECRET must be at least 32 characters long');
    }
    sessionSecret = new TextEncoder().encode(secretText);
  } else {
    sessionSecret = loadOrCreateSecret(dataDir);
    warnings.push(
      `SESSION_SECRET is not set: using the generated secret stored in ${path.join(dataDir, 'session-secret')}`,
    );
  }

  let sessionTtlSeconds = SESSION_TTL_SECONDS;
  const legacyExpiry = read('JWT_EXPIRES_IN');
  if (legacyExpiry !== undefined) {
    sessionTtlSeconds = parseDuration('JWT_EXPIRES_IN', legacyExpiry);
    warnings.push(
      'JWT_EXPIRES_IN is deprecated and will be removed: sessions last 30 days by default; unset it to use the default',
    );
  }

  const maxUploadBytes = parseInteger('MAX_UPLOAD_BYTES', read('MAX_UPLOAD_BYTES') ?? '1073741824', 1);
  const requestTimeoutMs = parseInteger('REQUEST_TIMEOUT_MS', read('REQUEST_TIMEOUT_MS') ?? '0', 0);
  const requestIdleTimeoutMs = parseInteger('REQUEST_IDLE_TIMEOUT_MS', read('REQUEST_IDLE_TIMEOUT_MS') ?? '60000', 1);

  const logLevel = (read('LOG_LEVEL') ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }

  return Object.freeze({
    port,
    host,
    baseUrl,
    dataDir,
    uploadDir,
    storage,
    database,
    sessionSecret,
    sessionTtlSeconds,
    secureCookies: baseUrl.startsWith('https:'),
    maxUploadBytes,
    trustProxy: parseTrustProxy(read('TRUST_PROXY')),
    logLevel,
    requestTimeoutMs,
    requestIdleTimeoutMs,
    startupWarnings: Object.freeze(warnings),
  });
}

function parseInteger(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${text}`);
  return value;
}

function parseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`BASE_URL must be an absolute http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`BASE_URL must start with http:// or https://, got "${text}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** S3_BUCKET selects the bucket; the other S3_* settings only matter with it. */
function parseStorage(read: Read, uploadDir: string): StorageConfig {
  const bucket = read('S3_BUCKET');
  if (bucket === undefined) {
    const stray = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).find((name) => read(name) !== undefined);
    if (stray) throw new ConfigError(`${stray} is set but S3_BUCKET is not: set S3_BUCKET to store files in a bucket`);
    return { kind: 'disk', dir: uploadDir };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`S3_BUCKET must be a valid bucket name, got "${bucket}"`);
  const endpoint = read('S3_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new ConfigError(`S3_ENDPOINT must be an http(s) URL, got "${redactUrl(endpoint)}"`);
  }
  const accessKeyId = read('S3_ACCESS_KEY_ID');
  const secretAccessKey = read('S3_SECRET_ACCESS_KEY', { trim: false });
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the SDK default credentials)');
  }
  const pathStyle = read('S3_FORCE_PATH_STYLE');
  if (pathStyle !== undefined && pathStyle !== 'true' && pathStyle !== 'false') {
    throw new ConfigError(`S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  }
  return {
    kind: 's3',
    bucket,
    region: read('S3_REGION') ?? 'us-east-1',
    endpoint,
    // S3-compatible servers mostly want path-style addresses; AWS itself wants virtual hosts.
    forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
    accessKeyId,
    secretAccessKey,
  };
}

function parseDatabaseUrl(text: string): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ConfigError('DATABASE_URL must look like postgres://user:password@host:5432/database');
    }
    if (!url.hostname || url.pathname.length < 2) {
      throw new ConfigError('DATABASE_URL must name a host and a database: postgres://user:password@host:5432/database');
    }
    return { dialect: 'postgresql', url: text };
  }
  const match = /^file:(.+)$/.exec(text);
  if (!match) throw new ConfigError(`DATABASE_URL must be file:/path/to/app.db or postgres://user:password@host/db, got "${redactUrl(text)}"`);
  const file = path.resolve(match[1]);
  ensureWritableDir('DATABASE_URL', path.dirname(file));
  return { dialect: 'sqlite', path: file };
}

/** The database for people to read: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(config: Pick<Config, 'database'>): string {
  return config.database.dialect === 'sqlite' ? config.database.path : redactUrl(config.database.url);
}

function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return text.replace(/:[^:@/]*@/, ':***@');
  }
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

function parseDuration(name: string, text: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text);
  const seconds = match ? Number(match[1]) * DURATION_UNITS[match[2] || 's'] : 0;
  if (!match || seconds <= 0) {
    throw new ConfigError(`${name} must be seconds or a number with a unit s, m, h or d (e.g. 3600, 12h, 30d), got "${text}"`);
  }
  return seconds;
}

function parseTrustProxy(text: string | undefined): Config['trustProxy'] {
  if (text === undefined) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^\d+$/.test(text)) return Number(text);
  return text;
}

/**
 * UPLOAD_DIR is the service's own: its start-up sweep removes content without a record there.
 * It must not hold the data dir (database, secret) or the database (issue 12: with
 * UPLOAD_DIR=DATA_DIR a first start deleted app.db and session-secret).
 */
function refuseSharedUploadDir(uploadDir: string, dataDir: string, database: DatabaseConfig): void {
  const uploads = fs.realpathSync(uploadDir);
  if (isWithin(fs.realpathSync(dataDir), uploads)) {
    throw new ConfigError(`UPLOAD_DIR (${uploadDir}) must not be DATA_DIR or contain it: give uploads a folder of their own`);
  }
  if (database.dialect !== 'sqlite') return;
  const file = path.join(fs.realpathSync(path.dirname(database.path)), path.basename(database.path));
  if (isWithin(file, uploads)) {
    throw new ConfigError(`DATABASE_URL: the database ${database.path} must not be inside UPLOAD_DIR (${uploadDir})`);
  }
}

/** True when `target` is `folder` itself or anything below it. */
function isWithin(target: string, folder: string): boolean {
  const relative = path.relative(folder, target);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function ensureWritableDir(name: string, dir: string): void {
  try {
    makeDirectories(dir);
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not writable';
    throw new ConfigError(`${name}: directory ${dir} is not writable (${reason})`);
  }
}

/** A generated secret is kept in the data dir (mode 0600) so sessions survive restarts. */
function loadOrCreateSecret(dataDir: string): Uint8Array {
  const file = path.join(dataDir, 'session-secret');
  const existing = readSecretFile(file);
  if (existing !== null) return existing;
  const secret = randomBytes(48).toString('base64url');
  // Written in full under a temporary name, then linked into place: the file never exists
  // half-written (a crash leaves no empty secret), and link fails with EEXIST when another
  // process (server and CLI starting at once) got there first — its secret is then used.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(temp, secret + '\n', { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      // A filesystem without hard links: create it directly, still never overwriting.
      fs.writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      const winner = readSecretFile(file);
      if (winner !== null) return winner;
    }
    throw new ConfigError(`SESSION_SECRET: cannot write ${file} (${code})`);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return new TextEncoder().encode(secret);
}

/** The stored secret; null when there is none yet; a ConfigError when it is unusable. */
function readSecretFile(file: string): Uint8Array | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new ConfigError(`SESSION_SECRET: cannot read ${file} (${code})`);
  }
  if (text.length < 32) {
    throw new ConfigError(`SESSION_SECRET: ${file} holds fewer than 32 characters; delete it to generate a new secret, or set SESSION_SECRET`);
  }
  return new TextEncoder().encode(text);
}
