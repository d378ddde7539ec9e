// The error and fatal lines of an app running in the test worker go to the check after each
// test (tests/setup/fail-on-unexpected-errors.ts), which fails the test unless it called
// allowErrorLogs(). The logger is the one the service builds (server/utilities/logger.ts); only where its
// lines go changes, as a pino destination would.
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../../server/utilities/logger';
import { recordErrorLog } from '../setup/expected-errors';

const ERROR_LEVEL = 50;

/**
 * The log level an in-process app gets unless a test names one: error, so that error and
 * fatal lines exist to be checked, and nothing below them is formatted.
 */
export const CHECKED_LOG_LEVEL: LogLevel = 'error';

/**
 * Sends `log`'s lines at error level and above (its children's too) to the after-test check.
 * With `keepWriting`, every line still goes where it went before as well (a test that asked
 * for a log level of its own sees its log as before); with `keep`, every line is also given to it.
 */
export function checkErrorLogs(
  log: Logger,
  { keepWriting, keep }: { keepWriting: boolean; keep?: (line: string) => void },
): void {
  const { streamSym } = pino.symbols;
  const target = log as unknown as Record<symbol, { write(line: string): unknown }>;
  const original = target[streamSym];
  target[streamSym] = {
    write(line: string) {
      if (levelOf(line) >= ERROR_LEVEL) recordErrorLog(line.trimEnd());
      keep?.(line.trimEnd());
      if (keepWriting) original.write(line);
    },
  };
}

function levelOf(line: string): number {
  try {
    const { level } = JSON.parse(line) as { level?: unknown };
    return typeof level === 'number' ? level : 0;
  } catch {
    return 0;
  }
}
