import pino, { type Logger } from 'pino';
import type { LogLevel } from './config';

/** One JSON logger for the process. Secrets are never passed to it; redaction is a second fence. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['password', '*.password', 'token', '*.token', 'cookie', '*.cookie', 'headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
  });
}
