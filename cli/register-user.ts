// npm run register-user -- <username> [--admin] [--password-stdin] [--json|--quiet]   (README: Create a user)
// Parse arguments → read the password → registerUser → say so: a line for people, or for
// scripts the JSON of `users add --json` or the bare id. Every failure is one line on stderr
// and a non-zero exit code; never a stack trace.
import { isAppError } from '../server/utilities/errors';
import { registerUser } from '../server/services/users';
import {
  CliError,
  failureLine,
  loadCommandConfig,
  printHelpIfAsked,
  promptPassword,
  readFirstLine,
  usageError,
  withServiceContext,
  type CommandHelp,
} from './cli-support';

const HELP: CommandHelp = {
  name: 'register-user',
  forms: ['<username> [--admin] [--password-stdin] [--json|--quiet]'],
  summary: [
    'Creates a user and prints "Created user <name> (id <id>)" (--json, --quiet: for scripts).',
    'The password (8 characters to 72 bytes) is asked twice on a terminal.',
    "Uses the server's settings (DATA_DIR, DATABASE_URL, …), also while the server runs.",
  ],
  entries: [
    ['<username>', '1-64 characters of A-Z a-z 0-9 . _ -, unique whatever the case'],
    ['--admin', 'the new user administers the site (the console under /admin)'],
    ['--password-stdin', 'read the password from the first line of stdin instead (for scripts)'],
    ['--json', 'print {"user":{"id":…,"username":…}} instead (as users add --json does)'],
    ['--quiet', 'print only the id (for scripts: ID=$(… --quiet))'],
  ],
};

const OPTIONS = ['--admin', '--password-stdin', '--json', '--quiet'];

/** The line for people, or the form a script reads. */
function createdText(user: { id: string; username: string }, options: string[]): string {
  if (options.includes('--quiet')) return user.id;
  if (options.includes('--json')) return JSON.stringify({ user });
  return `Created user ${user.username}${options.includes('--admin') ? ', an admin,' : ''} (id ${user.id})`;
}

async function main(argv: string[]): Promise<number> {
  if (printHelpIfAsked(argv, HELP)) return 0;
  // Only "--" starts an option: "-x" is a username, refused by the service with its own message.
  // A lone "--" ends the options, as for every command (printHelpIfAsked, parseArgs).
  const end = argv.indexOf('--');
  const [options, rest] = end < 0 ? [argv, []] : [argv.slice(0, end), argv.slice(end + 1)];
  const passwordFromStdin = options.includes('--password-stdin');
  const positional = [...options.filter((arg) => !arg.startsWith('--')), ...rest];
  const unknown = options.filter((arg) => arg.startsWith('--') && !OPTIONS.includes(arg));
  if (unknown.length) throw usageError(HELP, `Unknown option '${unknown[0]}'`);
  if (options.includes('--json') && options.includes('--quiet'))
    throw usageError(HELP, 'Choose --json or --quiet, not both');
  if (positional.length !== 1)
    throw usageError(
      HELP,
      positional.length ? `Expected one <username>, got ${positional.length}` : 'Missing the <username>',
    );
  const [username] = positional;

  const config = loadCommandConfig();
  const password = passwordFromStdin ? await readFirstLine(process.stdin) : await promptPassword();

  const admin = options.includes('--admin');
  const user = await withServiceContext(config, (ctx) => registerUser(ctx, { username, password }, { admin }));
  process.stdout.write(`${createdText(user, options)}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`register-user: ${failureLine(error)}\n`);
    process.exit(isAppError(error) && error.code === 'CONFLICT' ? 3 : error instanceof CliError ? 2 : 1);
  },
);
