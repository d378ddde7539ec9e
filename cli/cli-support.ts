// What every admin command shares: the database opened (and migrated) for one command, and a
// failure said in one line, never a stack trace.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, describeDatabase, loadConfig, type Config } from '../server/config';
import { createServiceContext, type ServiceContext } from '../server/context';
import { createDeps, type Deps } from '../server/deps';
import { isAppError } from '../server/utilities/errors';
import { errorSummary } from '../server/utilities/logged-errors';
import { provision } from '../server/provision';

/** A failure the command explains itself: its message is the line the admin sees. */
export class CliError extends Error {}

/** A wrong command line: exit code 2. */
export class UsageError extends CliError {}

/** What `--help` says about a command, and what its usage errors point to. */
export interface CommandHelp {
  /** The npm script, and the built file dist/cli/<name>.js. */
  name: string;
  /** The forms of the command line, after the command itself; one line each. */
  forms: string[];
  /** What the command does, a line or two. */
  summary: string[];
  /** Each argument and option with what it means; one line each. */
  entries: Array<[term: string, meaning: string]>;
}

/**
 * The command as the admin runs it: `npm run <name> --` on a clone (the script runs the .ts
 * source with tsx), `node dist/cli/<name>.js` otherwise (the container has no tsx nor cli/).
 */
function invocation(help: CommandHelp): string {
  return process.argv[1]?.endsWith('.ts') ? `npm run ${help.name} --` : `node dist/cli/${help.name}.js`;
}

/**
 * `--help` or `-h` among the options (those before a `--`): prints the usage on stdout and
 * returns true, so that the command exits 0 before it reads the configuration or opens anything.
 */
export function printHelpIfAsked(argv: string[], help: CommandHelp): boolean {
  const end = argv.indexOf('--');
  const options = end < 0 ? argv : argv.slice(0, end);
  if (!options.includes('--help') && !options.includes('-h')) return false;
  const command = invocation(help);
  const entries: CommandHelp['entries'] = [...help.entries, ['-h, --help', 'print this help']];
  const width = Math.max(...entries.map(([term]) => term.length)) + 2;
  process.stdout.write(
    [
      ...help.forms.map((form, i) => `${i === 0 ? 'Usage:' : '      '} ${command} ${form}`),
      ...help.summary,
      '',
      ...entries.map(([term, meaning]) => `  ${term.padEnd(width)}${meaning}`),
      '',
    ].join('\n'),
  );
  return true;
}

/** A wrong command line: one line that says what is wrong and how to get the usage. */
export function usageError(help: CommandHelp, problem: string): UsageError {
  return new UsageError(`${problem}. For usage, run: ${invocation(help)} --help`);
}

/** For commands whose first word picks what they do: `command` is unknown, missing, or given the wrong arguments. */
export function commandUsageError(help: CommandHelp, command: string | undefined): UsageError {
  const namesOf = (form: string) => form.split(' ')[0].split('|');
  const form = help.forms.find((candidate) => command !== undefined && namesOf(candidate).includes(command));
  if (form) return usageError(help, `Expected ${form}`);
  if (command === undefined) return usageError(help, `Missing the command (${help.forms.flatMap(namesOf).join(', ')})`);
  return usageError(help, `Unknown command "${command}"`);
}

/** The positionals and options of a command line; an unknown or malformed option is a UsageError naming it. */
export function parseCommandLine<O extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: O,
  help: CommandHelp,
) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    // Node's first sentence names the option ("Unknown option '--colour'"). Its hint is kept short
    // for a single dash: that is how a username such as "-bot" (ADR 0027) looks.
    const problem = (error as Error).message.split('\n')[0].split('. ')[0].replace(/\.$/, '');
    const dashName = /^Unknown option '-[^-]/.test(problem)
      ? ' (a name that starts with "-" goes after a lone --)'
      : '';
    throw usageError(help, problem + dashName);
  }
}

/**
 * The configuration as the server starts with it: checked, then its folders and generated secret
 * made on disk (a command may be the first thing run on a fresh install).
 */
export function loadCommandConfig(): Config {
  return provision(loadConfig());
}

/** Runs `command` with a service context on the configured database, closing it afterwards. */
export async function withServiceContext<T>(config: Config, command: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  let deps: Deps;
  try {
    deps = await createDeps(config, { logLevel: 'warn' });
  } catch (error) {
    throw new CliError(
      `Cannot open the database ${describeDatabase(config)} (${config.databaseVariable}): ${errorSummary(error)}`,
    );
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
  // A database's error without the statement and its values (ADR 0059).
  return `Unexpected error: ${errorSummary(error)}`;
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
  return ask(question, { hidden: true });
}

/**
 * Asks one question at the terminal. Ctrl-C or Ctrl-D instead of an answer rejects with a
 * CliError, so the command exits non-zero having done nothing (readline would otherwise just
 * close, and the process end with 0 as if it had worked).
 */
export function ask(question: string, options: { hidden?: boolean } = {}): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve, reject) => {
    let answered = false;
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      if (answered) return;
      process.stderr.write('\n');
      reject(new CliError('Cancelled: nothing was changed'));
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      if (options.hidden) process.stderr.write('\n');
      resolve(answer);
    });
    muted = options.hidden === true;
  });
}
