// npm run users -- <list|add|admin|passwd|disable|enable|delete|quota|reset-2fa|link-oidc|unlink-oidc> …   (ADR 0018, 0043, 0044, 0083)
// Account administration, safe while the server runs and on PostgreSQL. Each command prints
// a human line (or JSON with --json) and exits 0; every failure is one line on stderr and a
// non-zero exit code (2 for a wrong command line, 3 for a name already taken); never a stack.
import type { ServiceContext } from '../server/context';
import { isAppError } from '../server/utilities/errors';
import {
  deleteUser,
  describeUser,
  linkOidcSubject,
  listUsers,
  setUserDisabled,
  setUserPassword,
  setUserQuota,
  unlinkOidcSubject,
  type UserSummary,
} from '../server/services/accounts';
import { NO_ADMIN_HINT, setAdmin } from '../server/services/admins';
import { heldBytesByUser, type HeldBytes } from '../server/services/storage-usage';
import { resetTwoFactor } from '../server/services/two-factor';
import { registerUser } from '../server/services/users';
import { makeInvitation } from '../server/services/invitations';
import { type ActivityEntry, exportActivityEvents, readSince } from '../server/services/activity-log';
import {
  ask,
  CliError,
  commandUsageError,
  failureLine,
  loadCommandConfig,
  parseCommandLine,
  printHelpIfAsked,
  promptPassword,
  readFirstLine,
  UsageError,
  usageError,
  withServiceContext,
  type CommandHelp,
} from './cli-support';
import { formatBytes } from '../server/utilities/byte-sizes';
import { formatUsage, quotaColumn, quotaSetLine, quotaWarning } from './quota-lines';

const HELP: CommandHelp = {
  name: 'users',
  forms: [
    'list [--json]',
    'add <username> [--admin] [--password-stdin] [--json]',
    'admin <username> on|off [--json]',
    'passwd <username> [--password-stdin] [--json]',
    'disable|enable <username> [--json]',
    'delete <username> [--yes] [--json]',
    'quota <username> <size|none|default> [--json]',
    'reset-2fa <username> [--json]',
    'link-oidc <username> <subject> [--json]',
    'unlink-oidc <username> [--json]',
    'invite [--days <n>] [--uses <n>] [--quota <size|none|default>] [--admin] [--json]',
    'audit [--since <date>] [--json]',
  ],
  summary: ["Administers accounts with the server's settings (DATA_DIR, DATABASE_URL, …), also while the server runs."],
  entries: [
    ['<username>', 'the account (add: a new one, 1-64 characters of A-Z a-z 0-9 . _ -)'],
    ['<size>', "the user's own quota: 500MB, 2GB (kB, MB, GB, TB: powers of 1000); 500MiB, 2GiB, 2G"],
    ['', '(KiB, MiB, GiB, TiB and a bare K, M, G, T: powers of 1024); a bare number is bytes. It reads'],
    ['', 'back as written (1 GB as 1 GB) here, in `list` and on the pages;'],
    ['', 'none: unlimited; default: back to DEFAULT_QUOTA_BYTES. Below what the user stores: a warning'],
    [
      '--password-stdin',
      'add, passwd: read the password from the first line of stdin (otherwise asked twice on a terminal)',
    ],
    ['admin', 'gives (on) or takes (off) the right to administer the site under /admin; the last admin keeps it'],
    ['--admin', 'add: the new user is an admin; invite: the accounts it makes are admins'],
    ['invite', 'prints an invitation link that makes accounts (REGISTRATION=invite or open): it works'],
    ['', 'for --days (default 7, up to 365), makes --uses accounts (default 1), with --quota (default:'],
    ['', 'the default quota). Shown only now: only a hash of it is kept'],
    ['audit', 'prints the activity log (sign-ins, account and admin changes, deletions), oldest first,'],
    ['', 'from --since (a date such as 2026-01-31) on; --json: one JSON object a line'],
    ['reset-2fa', "turns the user's two-factor codes off (a lost phone): the password alone logs in again"],
    ['link-oidc', "the provider's identity <subject> (its `sub`) signs in as the user (OIDC_ISSUER)"],
    ['unlink-oidc', "the user's provider identity no longer signs in as them"],
    ['--yes', "delete: no question (needed without a terminal); the user's files go too"],
    ['--json', 'print JSON instead of a line for people'],
  ],
};

const COMMANDS = [
  'list',
  'add',
  'admin',
  'passwd',
  'disable',
  'enable',
  'delete',
  'quota',
  'reset-2fa',
  'link-oidc',
  'unlink-oidc',
  'invite',
  'audit',
] as const;
type CommandName = (typeof COMMANDS)[number];
/** How many names each command takes after it. */
const ARITY: Record<CommandName, number> = {
  list: 0,
  add: 1,
  admin: 2,
  passwd: 1,
  disable: 1,
  enable: 1,
  delete: 1,
  quota: 2,
  'reset-2fa': 1,
  'link-oidc': 2,
  'unlink-oidc': 1,
  invite: 0,
  audit: 0,
};

interface Command {
  name: CommandName;
  args: string[];
  json: boolean;
  yes: boolean;
  admin: boolean;
  passwordStdin: boolean;
  /** invite: what the invitation says (left out: its defaults). */
  invitation: { expiresInDays?: string; maxUses?: string; quota?: string };
  /** audit: from when. */
  since?: string;
}

function parseCommand(argv: string[]): Command {
  const parsed = parseCommandLine(
    argv,
    {
      json: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      admin: { type: 'boolean', default: false },
      'password-stdin': { type: 'boolean', default: false },
      days: { type: 'string' },
      uses: { type: 'string' },
      quota: { type: 'string' },
      since: { type: 'string' },
    },
    HELP,
  );
  const [name, ...args] = parsed.positionals;
  if (!COMMANDS.includes(name as CommandName) || args.length !== ARITY[name as CommandName])
    throw commandUsageError(HELP, name);
  const { json, yes, admin } = parsed.values;
  if (admin && name !== 'add' && name !== 'invite') throw commandUsageError(HELP, name);
  const { days, uses, quota } = parsed.values;
  if (name !== 'invite' && [days, uses, quota].some((given) => given !== undefined))
    throw commandUsageError(HELP, name);
  const { since } = parsed.values;
  if (since !== undefined && name !== 'audit') throw commandUsageError(HELP, name);
  if (name === 'admin' && args[1] !== 'on' && args[1] !== 'off')
    throw usageError(HELP, `admin takes on or off after the username, got "${args[1]}"`);
  return {
    name: name as CommandName,
    args,
    json,
    yes,
    admin,
    passwordStdin: parsed.values['password-stdin'],
    invitation: { expiresInDays: days, maxUses: uses, quota },
    since,
  };
}

async function readPassword(command: Command): Promise<string> {
  return command.passwordStdin ? readFirstLine(process.stdin) : promptPassword();
}

/** Deleting is for good: without --yes, the admin types the name again at a terminal. */
async function confirmDeletion(username: string): Promise<void> {
  if (!process.stdin.isTTY)
    throw new UsageError(`Deleting "${username}" and all their files cannot be undone: add --yes to confirm`);
  const answer = await ask(`Delete "${username}" with all their files? Type the username to confirm: `);
  if (answer.trim() !== username) throw new CliError('Not confirmed: nothing was deleted');
}

/** A user in the list, with the bytes their unfinished uploads hold against their quota. */
type ListedUser = UserSummary & { heldBytes: number; unfinishedUploads: number };

function describe(user: ListedUser): string {
  return [
    user.username,
    `created ${user.createdAt.slice(0, 10)}`,
    `${user.files} ${user.files === 1 ? 'file' : 'files'}`,
    formatUsage(user.bytes, user),
    `${formatUsage(user.heldBytes, user)} held`,
    quotaColumn(user),
    user.disabled ? 'DISABLED' : 'active',
    ...(user.admin ? ['admin'] : []),
    ...(user.oidcSubject === null ? [] : [`signs in with ${user.oidcSubject}`]),
  ].join('  ');
}

/** An activity event on one line: when, who, what, on what, how it ended, from where. */
function activityLine(entry: ActivityEntry): string {
  const who = entry.actor.name ? `${entry.actor.name} (${entry.actor.kind})` : entry.actor.kind;
  const what = entry.target ? `${entry.target.kind} ${entry.target.name ?? entry.target.id ?? ''}`.trim() : '';
  return [
    entry.at.slice(0, 19).replace('T', ' '),
    who,
    entry.action,
    entry.outcome,
    ...(what ? [what] : []),
    ...(entry.detail ? [entry.detail] : []),
    ...(entry.address ? [`from ${entry.address}`] : []),
  ].join('  ');
}

async function run(command: Command, ctx: ServiceContext, password: string | null): Promise<void> {
  const print = (json: unknown, human: string): void => {
    process.stdout.write(`${command.json ? JSON.stringify(json) : human}\n`);
  };
  const [username, value] = command.args;
  switch (command.name) {
    case 'list': {
      const held = await heldBytesByUser(ctx);
      const nothingHeld: HeldBytes = { bytes: 0, uploads: 0 };
      const users: ListedUser[] = (await listUsers(ctx)).map((user) => {
        const { bytes, uploads } = held.get(user.id) ?? nothingHeld;
        return { ...user, heldBytes: bytes, unfinishedUploads: uploads };
      });
      const lines = users.length ? users.map(describe) : ['No users yet'];
      if (!users.some((user) => user.admin && !user.disabled)) lines.push(NO_ADMIN_HINT);
      return print({ users }, lines.join('\n'));
    }
    case 'add': {
      const user = await registerUser(ctx, { username, password }, { admin: command.admin });
      return print({ user }, `Created ${user.username}${command.admin ? ', an admin,' : ''} (id ${user.id})`);
    }
    case 'admin': {
      const on = value === 'on';
      const { changed, username: name } = await setAdmin(ctx, username, on);
      const said = on
        ? changed
          ? `${name} is now an admin`
          : `${name} was already an admin`
        : changed
          ? `${name} is no longer an admin`
          : `${name} was not an admin`;
      return print({ ok: true, changed, user: await describeUser(ctx, username) }, said);
    }
    case 'passwd': {
      if (password === null) throw new CliError('passwd needs a new password');
      const { sessionsRevoked } = await setUserPassword(ctx, username, password);
      return print(
        { ok: true, sessionsRevoked },
        `Password of ${username} changed; ${sessionsRevoked} session(s) logged out`,
      );
    }
    case 'disable':
    case 'enable': {
      const { changed } = await setUserDisabled(ctx, username, command.name === 'disable');
      const state = command.name === 'disable' ? 'disabled' : 'enabled';
      return print(
        { ok: true, changed, user: await describeUser(ctx, username) },
        changed ? `${username} is now ${state}` : `${username} was already ${state}`,
      );
    }
    case 'delete': {
      const removed = await deleteUser(ctx, username);
      return print(
        { ok: true, removed },
        `Deleted ${username}, ${removed.files} file(s) and ${formatBytes(removed.bytes)}`,
      );
    }
    case 'quota': {
      const user = await setUserQuota(ctx, username, value);
      // Allowed (the files stay), but the admin should know: on stderr, so --json stays one object.
      const warning = quotaWarning(user);
      if (warning) process.stderr.write(`${warning}\n`);
      return print({ user }, quotaSetLine(user));
    }
    case 'reset-2fa': {
      const { wasOn } = await resetTwoFactor(ctx, username);
      return print(
        { ok: true, wasOn },
        wasOn ? `Two-factor codes of ${username} turned off` : `${username} had no two-factor codes`,
      );
    }
    case 'link-oidc': {
      const { changed } = await linkOidcSubject(ctx, username, value);
      return print(
        { ok: true, changed, user: await describeUser(ctx, username) },
        changed ? `${username} now signs in with the identity ${value}` : `${username} was already linked to ${value}`,
      );
    }
    case 'unlink-oidc': {
      const { changed } = await unlinkOidcSubject(ctx, username);
      return print(
        { ok: true, changed, user: await describeUser(ctx, username) },
        changed ? `${username} is no longer linked to a provider identity` : `${username} had no linked identity`,
      );
    }
    case 'audit': {
      let any = false;
      await exportActivityEvents(ctx, readSince(command.since), (entry) => {
        any = true;
        process.stdout.write(`${command.json ? JSON.stringify(entry) : activityLine(entry)}\n`);
      });
      if (!any && !command.json) process.stdout.write('No events\n');
      return;
    }
    case 'invite': {
      const made = await makeInvitation(ctx, { ...command.invitation, admin: command.admin }, null);
      const { invitation } = made;
      return print(
        made,
        [
          made.url,
          `It makes ${invitation.maxUses === 1 ? 'one account' : `up to ${invitation.maxUses} accounts`}${invitation.admin ? ' of admins' : ''} until ${invitation.expiresAt.slice(0, 16).replace('T', ' ')} UTC; it is shown only now.`,
        ].join('\n'),
      );
    }
  }
}

async function main(argv: string[]): Promise<number> {
  if (printHelpIfAsked(argv, HELP)) return 0;
  const command = parseCommand(argv);
  const config = loadCommandConfig();
  const password = command.name === 'add' || command.name === 'passwd' ? await readPassword(command) : null;
  if (command.name === 'delete' && !command.yes) await confirmDeletion(command.args[0]);
  await withServiceContext(config, (ctx) => run(command, ctx, password));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`users: ${failureLine(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : isAppError(error) && error.code === 'CONFLICT' ? 3 : 1);
  },
);
