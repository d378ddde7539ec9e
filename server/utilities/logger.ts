import pino, { type DestinationStream, type Logger } from 'pino';
import { errorForLog } from './logged-errors';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Keys whose values never reach the log, at the top of a log object or one level down. */
const SECRET_KEYS = ['password', 'token', 'cookie'];
/** And in the `headers` object, the Authorization header. */
const SECRET_HEADERS = [...SECRET_KEYS, 'authorization'];
const CENSOR = '[redacted]';

/**
 * One JSON logger for the process. Secrets are never passed to it; `withoutSecrets` is a second
 * fence. It replaces pino's `redact` option, whose wildcard paths (`*.password`) copied every
 * logged object, most of an upload's log cost (about 12 KB of garbage a line; ADR 0020).
 * An error (`err`) is logged without the values a query bound (server/utilities/logged-errors.ts, ADR 0059).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: undefined, formatters: { log: withoutSecrets }, serializers: { err: errorForLog } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The log object with the values of SECRET_KEYS replaced, at its top and in the objects it
 * holds (and `headers.authorization`): the paths pino's `redact` had. The object itself when
 * there is nothing to hide, copied only where there is.
 */
function withoutSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let safe = object;
  for (const key in object) {
    const value = object[key];
    if (SECRET_KEYS.includes(key)) {
      if (safe === object) safe = { ...object };
      safe[key] = CENSOR;
    } else if (mayHoldSecrets(value)) {
      const inner = censored(value, key === 'headers' ? SECRET_HEADERS : SECRET_KEYS);
      if (inner !== value) {
        if (safe === object) safe = { ...object };
        safe[key] = inner;
      }
    }
  }
  return safe;
}

function censored(value: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  let safe = value;
  for (const key of keys) {
    if (!(key in value)) continue;
    if (safe === value) safe = { ...value };
    safe[key] = CENSOR;
  }
  return safe;
}

/** An object whose keys are logged (an Error goes to pino's own serializer, its message and stack kept). */
function mayHoldSecrets(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Error);
}
