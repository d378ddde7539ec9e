// npm run tokens -- <create|list|revoke> <username> …   (ADR 0015)
// For admins scripting a set-up: personal access tokens of any user. Each command prints a
// human line (or JSON with --json) and exits 0; every failure is one line on stderr and a
// non-zero exit code (2 for a wrong command line); never a stack trace.
import type { ServiceContext } from '../server/context';
import { issueApiToken, listApiTokensOf, revokeApiTokenOf, type ApiTokenDto } from '../server/services/api-tokens';
import { findUserByUsername } from '../server/services/users';
import {
  CliError,
  commandUsageError,
  failureLine,
  loadCommandConfig,
  parseCommandLine,
  printHelpIfAsked,
  UsageError,
  withServiceContext,
  type CommandHelp,
} from './cli-support';

const HELP: CommandHelp = {
  name: 'tokens',
  forms: [
    'create <username> --name <name> [--expires-in-days <days>] [--json]',
    'list <username> [--json]',
    'revoke <username> <token-id> [--json]',
  ],
  summary: [
    "Personal access tokens of any user, with the server's settings (DATA_DIR, DATABASE_URL, …).",
    'create prints the token alone on stdout, for scripts to take; it is never shown again.',
  ],
  entries: [
    ['<username>', 'whose tokens'],
    ['<token-id>', 'the id that list shows'],
    ['--name <name>', 'create: what the token is for'],
    ['--expires-in-days <days>', 'create: 1 to 3650 (default: never expires)'],
    ['--json', 'print JSON instead of lines for people'],
  ],
};

type Command = { username: string; json: boolean } & (
  | { name: 'create'; tokenName: string; expiresInDays?: string }
  | { name: 'list' }
  | { name: 'revoke'; tokenId: string }
);

function parseCommand(argv: string[]): Command {
  const parsed = parseCommandLine(
    argv,
    { name: { type: 'string' }, 'expires-in-days': { type: 'string' }, json: { type: 'boolean', default: false } },
    HELP,
  );
  const [name, username, tokenId, ...rest] = parsed.positionals;
  const { values } = parsed;
  if (!username || rest.length) throw commandUsageError(HELP, name);
  if (name === 'create' && values.name !== undefined && tokenId === undefined) {
    return { name, username, tokenName: values.name, expiresInDays: values['expires-in-days'], json: values.json };
  }
  if (name === 'list' && tokenId === undefined && values.name === undefined)
    return { name, username, json: values.json };
  if (name === 'revoke' && tokenId !== undefined && values.name === undefined)
    return { name, username, tokenId, json: values.json };
  throw commandUsageError(HELP, name);
}

async function run(ctx: ServiceContext, command: Command): Promise<void> {
  const user = await findUserByUsername(ctx, command.username);
  if (!user) throw new CliError(`No user named "${command.username}"`);
  const print = (json: unknown, human: string) =>
    process.stdout.write(`${command.json ? JSON.stringify(json) : human}\n`);

  if (command.name === 'create') {
    const created = await issueApiToken(ctx, user.id, {
      name: command.tokenName,
      expiresInDays: command.expiresInDays,
    });
    // The token alone on stdout, so a script can take it: TOKEN=$(npm run -s tokens -- create …).
    print(created, created.token);
    if (!command.json)
      process.stderr.write(
        `Token "${created.apiToken.name}" (id ${created.apiToken.id}) for ${user.username}: keep it now, it is not shown again.\n`,
      );
  } else if (command.name === 'list') {
    const tokens = await listApiTokensOf(ctx, user.id);
    print({ tokens }, tokens.length ? tokens.map(describe).join('\n') : `${user.username} has no API tokens`);
  } else {
    await revokeApiTokenOf(ctx, user.id, command.tokenId);
    print({ ok: true }, `Revoked token ${command.tokenId} of ${user.username}`);
  }
}

function describe(token: ApiTokenDto): string {
  const date = (iso: string | null, none: string) => (iso ? iso.slice(0, 16).replace('T', ' ') : none);
  return [
    token.id,
    JSON.stringify(token.name),
    `${token.start}…`,
    `created ${date(token.createdAt, '')}`,
    `last used ${date(token.lastUsedAt, 'never')}`,
    `expires ${date(token.expiresAt, 'never')}`,
  ].join('  ');
}

async function main(argv: string[]): Promise<number> {
  if (printHelpIfAsked(argv, HELP)) return 0;
  const command = parseCommand(argv);
  await withServiceContext(loadCommandConfig(), (ctx) => run(ctx, command));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`tokens: ${failureLine(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
