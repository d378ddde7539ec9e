// Where the log goes: JSON lines to stdout, which is what a container's log collector, journald
// or `docker logs | jq` reads; on a terminal (someone ran `npm start` by hand) readable lines
// instead, one per entry, with the time and level first (pino-pretty, ADR 0062).
import type { DestinationStream } from 'pino';

/** The stream for the logger: undefined means pino's own JSON lines to stdout. */
export async function logDestination(
  stdout: { isTTY?: boolean } = process.stdout,
): Promise<DestinationStream | undefined> {
  if (!stdout.isTTY) return undefined;
  // Loaded only for a terminal: a server in a container never holds the formatter.
  const { default: pretty } = await import('pino-pretty');
  // sync: a line is out before the next statement, so "stopped" is written before the exit.
  return pretty({ sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
}
