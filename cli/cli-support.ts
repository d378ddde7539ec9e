// What every admin command shares: the database opened (and migrated) for one command, and a
// failure said in one line, never a stack trace.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, describeDatabase, type Config } from '../server/config';
import { createServiceContext, type ServiceContext } from '../server/context';
import { createDeps, type Deps } from '../server/deps';
import { isAppError } from '../server/errors';

/** A failure the command explains itself: its message is the line the admin sees. */
export class CliError extends Error {}

/** A wrong command line: exit code 2. */
export class UsageError extends CliError {}

/** The positionals and options of a command line; an unknown or malformed option is a UsageError naming it, then the usage. */
export function parseCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]}\n${usage}`);
  }
}

/** Runs `command` with a service context on the configured database, closing it afterwards. */
export async function withServiceContext<T>(config: Config, command: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  let deps: Deps;
  try {
    deps = await createDeps(config, { logLevel: 'warn' });
  } catch (error) {
    throw new CliError(`Cannot open the database ${describeDatabase(config)}: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    return await command(createServiceContext(deps));
  } finally {
    await deps.close();
  }
}

/** The one line that says why a command failed. */
export function failureLine(error: unknown): string {
  if (error instanceof CliError || error instanceof ConfigError || isAppError(error)) return error.message;
  return `Unexpected error: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
}

/** The first line of a stream (scripts pipe the password in). */
export async function readFirstLine(input: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new CliError('No password on stdin');
}

/** Asks twice without echo; only on a terminal. */
export async function promptPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new CliError('stdin is not a terminal: pass --password-stdin and pipe the password in');
  }
  const first = await askHidden('Password: ');
  const second = await askHidden('Repeat password: ');
  if (first !== second) throw new CliError('The passwords do not match');
  return first;
}

export function askHidden(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}
