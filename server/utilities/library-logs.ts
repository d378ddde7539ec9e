// What libraries print for themselves (knex's "Connection Error: …", the AWS SDK's warnings)
// goes to our JSON log instead of the console, where a plain-text line would break the log
// format and the CLIs' one-line errors.
import { format } from 'node:util';
import type { Logger } from 'pino';

/**
 * A logger for knex (its `log` option) and the AWS SDK (its `logger` option). The SDK also
 * logs every failed command at error, expected ones included (a 404 from HeadObject) and with
 * their stacks: its errors reach us as rejections, which we report where they matter, so those
 * stay out (`errors: false`).
 */
export function libraryLogger(log: Logger, library: string, options: { errors: boolean }) {
  const child = log.child({ library });
  return {
    // Their chatter stays out of the log.
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (...args: unknown[]) => child.warn(format(...args)),
    error: (...args: unknown[]) => (options.errors ? child.error(format(...args)) : undefined),
    // knex only.
    deprecate: (method: string, alternative: string) => child.warn(`${method} is deprecated, use ${alternative}`),
  };
}
