// The only reader of process.env. The environment is checked once at start against one zod
// schema; a bad value throws a ConfigError whose message is one line naming the variable.
// Nothing here touches the disk: the folders and the generated secret the values name are
// start-up's work (server/provision.ts).
import path from 'node:path';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { readSize } from './utilities/byte-sizes';
import { countCharacters } from './utilities/characters';
import { LOG_LEVELS, type LogLevel } from './utilities/logger';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Where the records live: a SQLite file (the embedded default) or a PostgreSQL server. */
export type DatabaseConfig =
  | { readonly dialect: 'sqlite'; readonly path: string }
  | { readonly dialect: 'postgresql'; readonly url: string };

/** Where file content lives: a local folder (the embedded default) or an S3-compatible bucket. */
type StorageConfig =
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
  /** Public base address without a trailing slash: BASE_URL, or `http://localhost:$PORT` when unset. */
  readonly baseUrl: string;
  /**
   * Whether BASE_URL was set. When it was not, pages show links with the address each visitor
   * used (http/link-base.ts); the API's answers and what is sent out use `baseUrl`.
   */
  readonly baseUrlSet: boolean;
  readonly dataDir: string;
  /** The local content folder (used when `storage` is the disk). */
  readonly uploadDir: string;
  readonly storage: StorageConfig;
  readonly database: DatabaseConfig;
  /** The variable that places the database: DATA_DIR while DATABASE_URL is unset (errors name it). */
  readonly databaseVariable: 'DATABASE_URL' | 'DATA_DIR';
  /** The variable that places the local content folder: DATA_DIR while UPLOAD_DIR is unset (errors name it). */
  readonly uploadDirVariable: 'UPLOAD_DIR' | 'DATA_DIR';
  readonly sessionSecret: Uint8Array;
  readonly sessionTtlSeconds: number;
  /** Cookies get `Secure` when the public address is https. */
  readonly secureCookies: boolean;
  readonly maxUploadBytes: number;
  /** Storage each user may fill, in bytes, unless an admin set their own quota; null: unlimited. */
  readonly defaultQuotaBytes: number | null;
  /** Expiry of share links in seconds: the longest allowed and the one given when none is chosen (null: none). */
  readonly shareExpiry: { readonly maxSeconds: number | null; readonly defaultSeconds: number | null };
  readonly trustProxy: boolean | number | string | undefined;
  readonly logLevel: LogLevel;
  /** Node's request timeout; 0 disables it so multi-GB uploads on slow links are not cut. */
  readonly requestTimeoutMs: number;
  /** A connection that sends and takes nothing for this long is closed (a stalled body). */
  readonly requestIdleTimeoutMs: number;
  /** Prometheus metrics (ADR 0049), off while both are null: the token guards /metrics, the port serves it apart. */
  readonly metrics: { readonly token: string | null; readonly port: number | null };
  /** Things worth telling the operator once the logger exists. */
  readonly startupWarnings: readonly string[];
  /** Webhooks (ADR 0050): whether endpoints may be on private addresses, and the first retry's delay. */
  readonly webhooks: { readonly allowPrivate: boolean; readonly retryBaseMs: number };
  /** Sign-in with an OpenID Connect provider (ADR 0044); null while OIDC_ISSUER is unset. */
  readonly oidc: OidcConfig | null;
  /** Whether the login page and the API take a password (PASSWORD_LOGIN); API tokens work either way. */
  readonly passwordLogin: boolean;
  /** What the site calls itself (SITE_NAME): the header, titles, link previews, the manifest. */
  readonly siteName: string;
  /**
   * Who may make an account on the web (REGISTRATION, ADR 0086): nobody (`off`, the CLI and the
   * console only), whoever holds an invitation (`invite`), or anyone on /signup too (`open`).
   */
  readonly registration: Registration;
  /** How long the activity log keeps an event (AUDIT_RETENTION_DAYS, ADR 0087). */
  readonly activityRetentionDays: number;
  /** Every variable as it was set, secrets hidden, for the admin console (ADR 0083). */
  readonly settingsInForce: readonly SettingInForce[];
}

/** A variable of the environment as an admin may see it: its value as set, or null when unset. */
export interface SettingInForce {
  readonly name: string;
  /** As set; a secret's is "(set, hidden)" and a URL's password is *** . */
  readonly value: string | null;
}

/** The OpenID Connect provider existing accounts may sign in with (ADR 0044). */
export interface OidcConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The provider's name on the login page ("Sign in with Acme") and in the sessions list ("via Acme"). */
  readonly displayName: string;
  readonly scopes: string;
  /** The claim whose value, equal to a username, signs an unlinked identity in as that account (and links it). */
  readonly matchClaim: 'preferred_username' | 'email' | null;
  /** Whether a user with two-factor codes on is asked for a code after the provider too. */
  readonly requireTwoFactor: boolean;
}

/**
 * What loadConfig returns: the environment checked, nothing on disk done yet. provision()
 * (server/provision.ts) makes the folders and turns it into the Config the service runs with.
 */
export interface LoadedConfig extends Omit<Config, 'sessionSecret'> {
  /** SESSION_SECRET's bytes; null when it is unset: start-up reads or generates $DATA_DIR/session-secret. */
  readonly sessionSecret: Uint8Array | null;
}

/** A variable as read, byte for byte (for values whose exact bytes matter: secrets); blank counts as unset. */
const exactVariable = z
  .string()
  .optional()
  .transform((value) => (value?.trim() === '' ? undefined : value));
/** The same, trimmed: what every other variable holds. */
const variable = exactVariable.transform((value) => value?.trim());

/** Reports a bad value (one line naming the variable) and stops this variable's parsing. */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: z.ZodIssueCode.custom, message });
  return z.NEVER;
}

function wholeNumber(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  return variable.transform((text, ctx) => {
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) return refuse(ctx, `${name} must be a whole number, got "${text}"`);
    const value = Number(text);
    if (value < min || value > max) return refuse(ctx, `${name} must be between ${min} and ${max}, got ${text}`);
    return value;
  });
}

/**
 * A size: bytes, or a number with a unit of either system (`500MB`, `1GiB`), read as the CLI's
 * quota sizes are (ADR 0065); unset: `fallback`.
 */
function byteSize<Fallback extends number | null>(name: string, fallback: Fallback, min: number) {
  return variable.transform((text, ctx): number | Fallback => {
    if (text === undefined) return fallback;
    const bytes = readSize(text);
    if (bytes === null)
      return refuse(ctx, `${name} must be a number of bytes or a size such as 500MB or 1GiB, got "${text}"`);
    if (bytes < min) return refuse(ctx, `${name} must be at least ${min} byte, got "${text}"`);
    return bytes;
  });
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * The longest session JWT_EXPIRES_IN may ask for. Far longer ones (100000000d) are past what a
 * date can hold: the start went on and every login failed on an invalid expiry.
 */
/** A signed-in session lasts 30 days unless JWT_EXPIRES_IN says otherwise. */
const DEFAULT_SESSION_TTL_SECONDS = 30 * DURATION_UNITS.d;
const LONGEST_SESSION = { seconds: 3650 * DURATION_UNITS.d, text: '3650d (10 years)' };
/** The same for share links: an upload's own expiresIn goes up to 100 years (MAX_EXPIRES_IN_SECONDS). */
const LONGEST_SHARE_EXPIRY = { seconds: 36500 * DURATION_UNITS.d, text: '36500d (100 years)' };

/** A positive duration in seconds: a number of seconds, or a number with a unit s, m, h or d; at most `longest`. */
function duration(name: string, longest?: { seconds: number; text: string }) {
  return variable.transform((text, ctx) => {
    if (text === undefined) return undefined;
    const match = /^(\d+)\s*([smhd]?)$/.exec(text);
    const seconds = match ? Number(match[1]) * DURATION_UNITS[match[2] || 's'] : 0;
    if (seconds === 0)
      return refuse(
        ctx,
        `${name} must be seconds or a number with a unit s, m, h or d (e.g. 3600, 12h, 30d), got "${text}"`,
      );
    if (longest && seconds > longest.seconds)
      return refuse(ctx, `${name} must be at most ${longest.text}, got "${text}"`);
    return seconds;
  });
}

/**
 * Every variable the service reads, each with its rule; `.env.example` and the README table
 * must document exactly these. The values are checked here; what needs the filesystem
 * (folders, the generated secret) is done at start-up afterwards (server/provision.ts).
 */
const environmentVariables = z.object({
  PORT: wholeNumber('PORT', 3000, 0, 65535),
  HOST: variable.transform((host) => host ?? '0.0.0.0'),
  // Defaults to http://localhost:PORT (in environmentSchema below).
  BASE_URL: variable.transform((text, ctx) => (text === undefined ? undefined : parseBaseUrl(text, ctx))),
  DATA_DIR: variable.transform((dir) => path.resolve(dir ?? './data')),
  UPLOAD_DIR: variable,
  DATABASE_URL: variable.transform((text, ctx) => (text === undefined ? undefined : parseDatabaseUrl(text, ctx))),
  // The secret's bytes are used exactly as given.
  SESSION_SECRET: exactVariable.refine(
    (secret) => secret === undefined || countCharacters(secret) >= 32,
    'SESSION_SECRET must be at least 32 characters long',
  ),
  MAX_UPLOAD_BYTES: byteSize('MAX_UPLOAD_BYTES', 1073741824, 1),
  // Unset: unlimited (ADR 0018).
  DEFAULT_QUOTA_BYTES: byteSize('DEFAULT_QUOTA_BYTES', null, 0),
  TRUST_PROXY: variable.transform((text, ctx) => parseTrustProxy(text, ctx)),
  LOG_LEVEL: variable.transform((text, ctx) => {
    const level = (text ?? 'info').toLowerCase() as LogLevel;
    return LOG_LEVELS.includes(level) ? level : refuse(ctx, `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }),
  // Node's request timeout: 0 (none) by default, so that multi-GB uploads on slow links are not cut.
  REQUEST_TIMEOUT_MS: wholeNumber('REQUEST_TIMEOUT_MS', 0, 0),
  REQUEST_IDLE_TIMEOUT_MS: wholeNumber('REQUEST_IDLE_TIMEOUT_MS', 60000, 1),
  // Prometheus metrics (ADR 0049): /metrics behind a bearer token, or on a port of its own.
  METRICS_TOKEN: exactVariable.refine(
    (token) => token === undefined || (token.length >= 16 && !/\s/.test(token)),
    'METRICS_TOKEN must be at least 16 characters without spaces',
  ),
  METRICS_PORT: variable.transform((text, ctx) => {
    if (text === undefined) return null;
    const port = Number(text);
    if (!/^\d+$/.test(text) || port < 1 || port > 65535)
      return refuse(ctx, `METRICS_PORT must be a port between 1 and 65535, got "${text}"`);
    return port;
  }),
  // Webhooks (ADR 0050): endpoints on private, loopback or link-local addresses only when on.
  WEBHOOK_ALLOW_PRIVATE: variable.transform((text, ctx) => {
    if (text === undefined || text === 'on' || text === 'off') return text === 'on';
    return refuse(ctx, `WEBHOOK_ALLOW_PRIVATE must be on or off, got "${text}"`);
  }),
  // The delay before a failed delivery's first retry; each next one doubles it (with jitter).
  WEBHOOK_RETRY_BASE_MS: wholeNumber('WEBHOOK_RETRY_BASE_MS', 30000, 1, 3600000),
  AUDIT_RETENTION_DAYS: wholeNumber('AUDIT_RETENTION_DAYS', 365, 1, 36500),
  JWT_EXPIRES_IN: duration('JWT_EXPIRES_IN', LONGEST_SESSION),
  // Share links (ADR 0014): the longest expiry an upload may have, and the one it gets when none is chosen.
  MAX_EXPIRY: duration('MAX_EXPIRY', LONGEST_SHARE_EXPIRY),
  DEFAULT_EXPIRY: duration('DEFAULT_EXPIRY', LONGEST_SHARE_EXPIRY),
  S3_BUCKET: variable.refine(
    (bucket) => bucket === undefined || /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket),
    (bucket) => ({ message: `S3_BUCKET must be a valid bucket name, got "${bucket}"` }),
  ),
  S3_ENDPOINT: variable.refine(
    (endpoint) => endpoint === undefined || /^https?:\/\/[^/]/.test(endpoint),
    (endpoint) => ({ message: `S3_ENDPOINT must be an http(s) URL, got "${redactUrl(endpoint ?? '')}"` }),
  ),
  S3_REGION: variable.transform((region) => region ?? 'us-east-1'),
  S3_ACCESS_KEY_ID: variable,
  S3_SECRET_ACCESS_KEY: exactVariable,
  S3_FORCE_PATH_STYLE: variable.transform((text, ctx) => {
    if (text === undefined || text === 'true' || text === 'false')
      return text === undefined ? undefined : text === 'true';
    return refuse(ctx, `S3_FORCE_PATH_STYLE must be true or false, got "${text}"`);
  }),
  // Sign-in with OpenID Connect (ADR 0044): the provider is discovered at start.
  OIDC_ISSUER: variable.transform((text, ctx) => {
    if (text === undefined) return undefined;
    return /^https?:\/\/[^/]/.test(text) ? text : refuse(ctx, `OIDC_ISSUER must be an http(s) URL, got "${text}"`);
  }),
  OIDC_CLIENT_ID: variable,
  OIDC_CLIENT_SECRET: exactVariable,
  OIDC_DISPLAY_NAME: variable.refine(
    (name) => name === undefined || countCharacters(name) <= 64,
    'OIDC_DISPLAY_NAME must be at most 64 characters',
  ),
  OIDC_SCOPES: variable.transform((text, ctx) => {
    const scopes = (text ?? 'openid profile email').split(/\s+/).filter(Boolean);
    return scopes.includes('openid') ? scopes.join(' ') : refuse(ctx, `OIDC_SCOPES must include openid, got "${text}"`);
  }),
  OIDC_MATCH_CLAIM: variable.transform((text, ctx) => {
    if (text === undefined || text === 'preferred_username' || text === 'email') return text ?? null;
    return refuse(ctx, `OIDC_MATCH_CLAIM must be preferred_username or email (or unset), got "${text}"`);
  }),
  OIDC_REQUIRE_2FA: onOff('OIDC_REQUIRE_2FA', false),
  PASSWORD_LOGIN: onOff('PASSWORD_LOGIN', true),
  REGISTRATION: variable.transform((text, ctx) => {
    const value = text ?? 'off';
    if ((REGISTRATIONS as readonly string[]).includes(value)) return value as Registration;
    return refuse(ctx, `REGISTRATION must be off, invite or open, got "${text}"`);
  }),
  // The site's own name (ADR 0083): the header, page titles, link previews and the app manifest.
  SITE_NAME: variable.transform((text, ctx) => {
    const name = (text ?? '').replace(/\s+/g, ' ').trim() || DEFAULT_SITE_NAME;
    if (countCharacters(name) > 64) return refuse(ctx, 'SITE_NAME must be at most 64 characters');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what is refused is the point.
    if (/[\u0000-\u001f\u007f]/.test(name)) return refuse(ctx, 'SITE_NAME must not hold control characters');
    return name;
  }),
});

const REGISTRATIONS = ['off', 'invite', 'open'] as const;
type Registration = (typeof REGISTRATIONS)[number];

/** What the site calls itself while SITE_NAME is unset. */
const DEFAULT_SITE_NAME = 'File sharing';

/** A switch: on or off. */
function onOff(name: string, fallback: boolean) {
  return variable.transform((text, ctx) => {
    if (text === undefined) return fallback;
    if (text === 'on' || text === 'off') return text === 'on';
    return refuse(ctx, `${name} must be on or off, got "${text}"`);
  });
}

/** Every variable the config reads. */
export const CONFIG_VARIABLES = Object.keys(environmentVariables.shape) as ReadonlyArray<
  keyof typeof environmentVariables.shape
>;

/** The environment, checked as a whole: the variables, then the rules that tie several together. */
const environmentSchema = environmentVariables.transform((values, ctx) => {
  const database = values.DATABASE_URL ?? ({ dialect: 'sqlite', path: path.join(values.DATA_DIR, 'app.db') } as const);
  if (values.SESSION_SECRET === undefined && database.dialect === 'postgresql') {
    // Several instances share one PostgreSQL: each must sign sessions with the same key.
    return refuse(
      ctx,
      'SESSION_SECRET must be set when DATABASE_URL is PostgreSQL: every instance must use the same one',
    );
  }
  if (
    values.MAX_EXPIRY !== undefined &&
    values.DEFAULT_EXPIRY !== undefined &&
    values.DEFAULT_EXPIRY > values.MAX_EXPIRY
  ) {
    return refuse(ctx, 'DEFAULT_EXPIRY must not be longer than MAX_EXPIRY');
  }
  const uploadDir = path.resolve(values.UPLOAD_DIR ?? path.join(values.DATA_DIR, 'uploads'));
  const oidc = oidcOf(values, ctx);
  if (!values.PASSWORD_LOGIN && oidc === null) {
    return refuse(ctx, 'PASSWORD_LOGIN=off needs OIDC_ISSUER: without a provider nobody could sign in on the page');
  }
  return {
    oidc,
    passwordLogin: values.PASSWORD_LOGIN,
    siteName: values.SITE_NAME,
    registration: values.REGISTRATION,
    activityRetentionDays: values.AUDIT_RETENTION_DAYS,
    // A path derived from DATA_DIR is the operator's DATA_DIR: a failure there names it.
    uploadDirVariable: values.UPLOAD_DIR === undefined ? ('DATA_DIR' as const) : ('UPLOAD_DIR' as const),
    databaseVariable: values.DATABASE_URL === undefined ? ('DATA_DIR' as const) : ('DATABASE_URL' as const),
    port: values.PORT,
    host: values.HOST,
    baseUrl: values.BASE_URL ?? `http://localhost:${values.PORT}`,
    baseUrlSet: values.BASE_URL !== undefined,
    dataDir: values.DATA_DIR,
    uploadDir,
    storage: storageOf(values, uploadDir, ctx),
    database,
    sessionSecretText: values.SESSION_SECRET,
    legacySessionTtlSeconds: values.JWT_EXPIRES_IN,
    maxUploadBytes: values.MAX_UPLOAD_BYTES,
    defaultQuotaBytes: values.DEFAULT_QUOTA_BYTES,
    shareExpiry: {
      maxSeconds: values.MAX_EXPIRY ?? null,
      // With a maximum, every upload expires: by default after the maximum.
      defaultSeconds: values.DEFAULT_EXPIRY ?? values.MAX_EXPIRY ?? null,
    },
    trustProxy: values.TRUST_PROXY,
    logLevel: values.LOG_LEVEL,
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    requestIdleTimeoutMs: values.REQUEST_IDLE_TIMEOUT_MS,
    metrics: metricsOf(values, ctx),
    webhooks: { allowPrivate: values.WEBHOOK_ALLOW_PRIVATE, retryBaseMs: values.WEBHOOK_RETRY_BASE_MS },
  };
});

/** The variables once each is checked and given its default. */
type CheckedVariables = z.output<typeof environmentVariables>;

/** OIDC_ISSUER turns sign-in with a provider on; the other OIDC_* settings only matter with it. */
function oidcOf(values: CheckedVariables, ctx: z.RefinementCtx): OidcConfig | null {
  const issuer = values.OIDC_ISSUER;
  if (issuer === undefined) {
    const stray = (['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_DISPLAY_NAME'] as const).find(
      (name) => values[name] !== undefined,
    );
    if (stray) return refuse(ctx, `${stray} is set but OIDC_ISSUER is not: set OIDC_ISSUER to sign in with a provider`);
    return null;
  }
  if (values.OIDC_CLIENT_ID === undefined) return refuse(ctx, 'OIDC_CLIENT_ID must be set with OIDC_ISSUER');
  if (values.OIDC_CLIENT_SECRET === undefined) return refuse(ctx, 'OIDC_CLIENT_SECRET must be set with OIDC_ISSUER');
  return {
    issuer,
    clientId: values.OIDC_CLIENT_ID,
    clientSecret: values.OIDC_CLIENT_SECRET,
    displayName: values.OIDC_DISPLAY_NAME ?? new URL(issuer).host,
    scopes: values.OIDC_SCOPES,
    matchClaim: values.OIDC_MATCH_CLAIM,
    requireTwoFactor: values.OIDC_REQUIRE_2FA,
  };
}

/** METRICS_TOKEN or METRICS_PORT turns the metrics on; the port must not be the service's. */
function metricsOf(values: CheckedVariables, ctx: z.RefinementCtx): Config['metrics'] {
  if (values.METRICS_PORT !== null && values.METRICS_PORT === values.PORT) {
    return refuse(ctx, `METRICS_PORT must differ from PORT (${values.PORT}): the metrics are served apart`);
  }
  return { token: values.METRICS_TOKEN ?? null, port: values.METRICS_PORT };
}

/** S3_BUCKET selects the bucket; the other S3_* settings only matter with it. */
function storageOf(values: CheckedVariables, uploadDir: string, ctx: z.RefinementCtx): StorageConfig {
  const bucket = values.S3_BUCKET;
  if (bucket === undefined) {
    const stray = (['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).find(
      (name) => values[name] !== undefined,
    );
    if (stray) return refuse(ctx, `${stray} is set but S3_BUCKET is not: set S3_BUCKET to store files in a bucket`);
    return { kind: 'disk', dir: uploadDir };
  }
  if ((values.S3_ACCESS_KEY_ID === undefined) !== (values.S3_SECRET_ACCESS_KEY === undefined)) {
    return refuse(
      ctx,
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or neither, for the SDK default credentials)',
    );
  }
  return {
    kind: 's3',
    bucket,
    region: values.S3_REGION,
    endpoint: values.S3_ENDPOINT,
    // S3-compatible servers mostly want path-style addresses; AWS itself wants virtual hosts.
    forcePathStyle: values.S3_FORCE_PATH_STYLE ?? values.S3_ENDPOINT !== undefined,
    accessKeyId: values.S3_ACCESS_KEY_ID,
    secretAccessKey: values.S3_SECRET_ACCESS_KEY,
  };
}

type Env = Record<string, string | undefined>;

/** The environment, checked: a bad value throws a ConfigError naming its variable. Reads no file. */
export function loadConfig(env: Env = process.env): LoadedConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('; '));
  const settings = parsed.data;
  const warnings: string[] = [];
  if (settings.legacySessionTtlSeconds !== undefined) {
    warnings.push(
      'JWT_EXPIRES_IN is deprecated and will be removed: sessions last 30 days by default; unset it to use the default',
    );
  }

  return Object.freeze({
    port: settings.port,
    host: settings.host,
    baseUrl: settings.baseUrl,
    baseUrlSet: settings.baseUrlSet,
    dataDir: settings.dataDir,
    uploadDir: settings.uploadDir,
    storage: settings.storage,
    database: settings.database,
    databaseVariable: settings.databaseVariable,
    uploadDirVariable: settings.uploadDirVariable,
    sessionSecret:
      settings.sessionSecretText === undefined ? null : new TextEncoder().encode(settings.sessionSecretText),
    sessionTtlSeconds: settings.legacySessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS,
    secureCookies: settings.baseUrl.startsWith('https:'),
    maxUploadBytes: settings.maxUploadBytes,
    defaultQuotaBytes: settings.defaultQuotaBytes,
    shareExpiry: Object.freeze(settings.shareExpiry),
    trustProxy: settings.trustProxy,
    logLevel: settings.logLevel,
    requestTimeoutMs: settings.requestTimeoutMs,
    requestIdleTimeoutMs: settings.requestIdleTimeoutMs,
    metrics: Object.freeze(settings.metrics),
    webhooks: Object.freeze(settings.webhooks),
    startupWarnings: Object.freeze(warnings),
    oidc: settings.oidc === null ? null : Object.freeze(settings.oidc),
    passwordLogin: settings.passwordLogin,
    siteName: settings.siteName,
    registration: settings.registration,
    activityRetentionDays: settings.activityRetentionDays,
    settingsInForce: Object.freeze(settingsInForce(env)),
  });
}

/** Variables whose value is a secret: the console says only whether they are set. */
const SECRET_VARIABLES = new Set([
  'SESSION_SECRET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'OIDC_CLIENT_SECRET',
  'METRICS_TOKEN',
]);
/** Variables that are URLs and may carry a password. */
const URL_VARIABLES = new Set(['DATABASE_URL', 'S3_ENDPOINT', 'OIDC_ISSUER', 'BASE_URL']);

/** The listed variables as they were set, before any rule reads them. */
const variablesAsSet = z.object(
  Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, z.string().optional()])) as Record<
    (typeof CONFIG_VARIABLES)[number],
    z.ZodOptional<z.ZodString>
  >,
);

function settingsInForce(env: Env): SettingInForce[] {
  const asSet = variablesAsSet.parse(env);
  return CONFIG_VARIABLES.map((name) => {
    const text = asSet[name];
    if (text === undefined || text === '') return { name, value: null };
    if (SECRET_VARIABLES.has(name)) return { name, value: '(set, hidden)' };
    return { name, value: URL_VARIABLES.has(name) ? redactUrl(text) : text };
  });
}

function parseBaseUrl(text: string, ctx: z.RefinementCtx): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(ctx, `BASE_URL must be an absolute http(s) URL, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(ctx, `BASE_URL must start with http:// or https://, got "${text}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

function parseDatabaseUrl(text: string, ctx: z.RefinementCtx): DatabaseConfig {
  if (/^postgres(ql)?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return refuse(ctx, 'DATABASE_URL must look like postgres://user:password@host:5432/database');
    }
    if (!url.hostname || url.pathname.length < 2) {
      return refuse(ctx, 'DATABASE_URL must name a host and a database: postgres://user:password@host:5432/database');
    }
    return { dialect: 'postgresql', url: text };
  }
  const match = /^file:(.+)$/.exec(text);
  if (!match)
    return refuse(
      ctx,
      `DATABASE_URL must be file:/path/to/app.db or postgres://user:password@host/db, got "${redactUrl(text)}"`,
    );
  return { dialect: 'sqlite', path: path.resolve(match[1]) };
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

function parseTrustProxy(text: string | undefined, ctx: z.RefinementCtx): Config['trustProxy'] {
  if (text === undefined) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^\d+$/.test(text)) return Number(text);
  // Express hands a list to proxy-addr when the app starts: checked here so that a bad one is
  // a configuration error naming the variable, not a failure further on.
  try {
    proxyAddr.compile(text.split(',').map((entry) => entry.trim()));
  } catch (error) {
    return refuse(
      ctx,
      `TRUST_PROXY must be true, false, a number of hops, or addresses/subnets (e.g. loopback, 10.0.0.0/8): ${(error as Error).message}`,
    );
  }
  return text;
}
