// npm run register-user -- <username> [--password-stdin]   (README: Create a user)
// Parse arguments → read the password → registerUser → print the id. Every failure is one
// line on stderr and a non-zero exit code; never a stack trace.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { loadConfig } from '../server/config';
import { isAppError } from '../server/errors';
import { registerUser } from '../server/services/users';
import { CliError, failureLine, withServiceContext } from './cli-support';

const USAGE = 'Usage: npm run register-user -- <username> [--password-stdin]';

async function main(argv: string[]): Promise<number> {
  const passwordFromStdin = argv.includes('--password-stdin');
  const positional = argv.filter((arg) => !arg.startsWith('--'));
  const unknown = argv.filter((arg) => arg.startsWith('--') && arg !== '--password-stdin');
  if (unknown.length) throw new CliError(`Unknown option ${unknown[0]}. ${USAGE}`);
  if (positional.length !== 1) throw new CliError(USAGE);
  const [username] = positional;

  const config = loadConfig();
  const password = passwordFromStdin ? await readFirstLine(process.stdin) : await promptPassword();

  const user = await withServiceContext(config, (ctx) => registerUser(ctx, { username, password }));
  process.stdout.write(`${user.id}\n`);
  return 0;
}

/** The first line of a stream (scripts pipe the password in). */
async function readFirstLine(input: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new CliError('No password on stdin');
}

/** Asks twice without echo; only on a terminal. */
async function promptPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new CliError('stdin is not a terminal: pass --password-stdin and pipe the password in');
  }
  const first = await askHidden('Password: ');
  const second = await askHidden('Repeat password: ');
  if (first !== second) throw new CliError('The passwords do not match');
  return first;
}

function askHidden(question: string): Promise<string> {
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`register-user: ${failureLine(error)}\n`);
    process.exit(isAppError(error) && error.code === 'CONFLICT' ? 3 : error instanceof CliError ? 2 : 1);
  },
);
