// npm run register-user -- <username> [--password-stdin]   (README: Create a user)
// Parse arguments → read the password → registerUser → print the id. Every failure is one
// line on stderr and a non-zero exit code; never a stack trace.
import { loadConfig } from '../server/config';
import { isAppError } from '../server/errors';
import { registerUser } from '../server/services/users';
import { CliError, failureLine, promptPassword, readFirstLine, withServiceContext } from './cli-support';

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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`register-user: ${failureLine(error)}\n`);
    process.exit(isAppError(error) && error.code === 'CONFLICT' ? 3 : error instanceof CliError ? 2 : 1);
  },
);
