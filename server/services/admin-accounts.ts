// The admin console's accounts (ADR 0083): the list of every user with what they store, and
// what an admin does to one. Each function checks first that the caller is an admin (anyone
// else: NOT_FOUND, as if the console did not exist), then calls the service the CLI calls.
import { z } from 'zod';
import type { ServiceContext } from '../context';
import { ACCOUNT_SORTS, type AccountRow, countAccounts, selectAccountsPage } from '../db/accounts-page';
import { SessionSchema } from '../db/entities/session.entity';
import { storedDateMillis } from '../db/stored-date';
import { firstIssue } from '../schemas';
import { AppError } from '../utilities/errors';
import { deleteUser, describeUser, setUserDisabled, setUserQuota, type UserSummary } from './accounts';
import { requireAdmin, setAdmin } from './admins';
import { quotaOf } from './quotas';
import { resetTwoFactor } from './two-factor';
import { registerUser } from './users';
import { recordActivity } from './activity';

/** Accounts on one page of the list. */
const ACCOUNTS_PER_PAGE = 50;

const accountsQuerySchema = z.object({
  q: z.string().trim().max(64, 'A search is at most 64 characters').default(''),
  sort: z.enum(ACCOUNT_SORTS, { message: `sort is one of ${ACCOUNT_SORTS.join(', ')}` }).default('username'),
  order: z.enum(['asc', 'desc'], { message: 'order is asc or desc' }).default('asc'),
  page: z.coerce
    .number({ message: 'page is a whole number from 1' })
    .int('page is a whole number from 1')
    .min(1, 'page is a whole number from 1')
    .max(1_000_000, 'page is a whole number from 1')
    .default(1),
});
export type AccountsQuery = z.infer<typeof accountsQuerySchema>;

/** A user as the console lists them. */
export interface Account {
  id: string;
  username: string;
  createdAt: string;
  lastSignInAt: string | null;
  files: number;
  bytes: number;
  /** The quota that applies, in bytes; null: unlimited. */
  quotaBytes: number | null;
  quotaSource: 'own' | 'default';
  twoFactor: boolean;
  /** The provider identity linked to the account; null: none. */
  oidcSubject: string | null;
  admin: boolean;
  disabled: boolean;
}

export interface AccountsPage {
  accounts: Account[];
  /** Users that match the search, on all pages. */
  total: number;
  page: number;
  pages: number;
  query: AccountsQuery;
}

function isoOrNull(value: AccountRow['createdAt']): string | null {
  const millis = storedDateMillis(value);
  return millis === null ? null : new Date(millis).toISOString();
}

function accountOf(ctx: ServiceContext, row: AccountRow): Account {
  const quotaColumns = { hasOwnQuota: Boolean(row.hasOwnQuota), quotaBytes: row.quotaBytes };
  return {
    id: row.id,
    username: row.username,
    createdAt: isoOrNull(row.createdAt) ?? '',
    lastSignInAt: isoOrNull(row.lastSignInAt),
    files: Number(row.files),
    bytes: Number(row.bytes ?? 0),
    quotaBytes: quotaOf(ctx.config, quotaColumns),
    quotaSource: quotaColumns.hasOwnQuota ? 'own' : 'default',
    twoFactor: Boolean(row.twoFactorEnabled),
    oidcSubject: row.oidcSubject,
    admin: Boolean(row.isAdmin),
    disabled: row.disabledAt !== null,
  };
}

/** One page of every account, searched and sorted as asked (a query that makes no sense: BAD_REQUEST). */
export async function listAccounts(ctx: ServiceContext, input: unknown): Promise<AccountsPage> {
  await requireAdmin(ctx);
  const parsed = accountsQuerySchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const query = parsed.data;
  const total = await countAccounts(ctx.em, query.q);
  const pages = Math.max(1, Math.ceil(total / ACCOUNTS_PER_PAGE));
  const page = Math.min(query.page, pages);
  const rows = await selectAccountsPage(ctx.em, {
    search: query.q,
    sort: query.sort,
    descending: query.order === 'desc',
    limit: ACCOUNTS_PER_PAGE,
    offset: (page - 1) * ACCOUNTS_PER_PAGE,
  });
  return { accounts: rows.map((row) => accountOf(ctx, row)), total, page, pages, query: { ...query, page } };
}

/** One account as the CLI's `users list` describes it. */
export async function describeAccount(ctx: ServiceContext, username: string): Promise<UserSummary> {
  await requireAdmin(ctx);
  return describeUser(ctx, username);
}

/** An admin's own account is not theirs to disable or delete here: another admin, or the CLI, does it. */
async function requireAnotherUser(ctx: ServiceContext, username: string, what: string): Promise<void> {
  const admin = await requireAdmin(ctx);
  if (admin.username.toLowerCase() === username.toLowerCase())
    throw new AppError('CONFLICT', `You cannot ${what} your own account here: another admin can`);
}

const newAccountSchema = z.object({
  username: z.string(),
  password: z.string(),
  admin: z.boolean().default(false),
});

/** A new account, with a password the admin chose. */
export async function createAccount(ctx: ServiceContext, input: unknown): Promise<UserSummary> {
  await requireAdmin(ctx);
  const parsed = newAccountSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { username, password, admin } = parsed.data;
  const user = await registerUser(ctx, { username, password }, { admin });
  ctx.log.info({ userId: user.id, admin }, 'user created by an admin');
  return describeUser(ctx, user.username);
}

export async function setAccountDisabled(ctx: ServiceContext, username: string, disabled: boolean) {
  if (disabled) await requireAnotherUser(ctx, username, 'disable');
  else await requireAdmin(ctx);
  const { changed } = await setUserDisabled(ctx, username, disabled);
  return { changed, user: await describeUser(ctx, username) };
}

export async function setAccountQuota(ctx: ServiceContext, username: string, quota: string): Promise<UserSummary> {
  await requireAdmin(ctx);
  return setUserQuota(ctx, username, quota);
}

export async function setAccountAdmin(ctx: ServiceContext, username: string, admin: boolean) {
  await requireAdmin(ctx);
  const { changed } = await setAdmin(ctx, username, admin);
  return { changed, user: await describeUser(ctx, username) };
}

export async function resetAccountTwoFactor(ctx: ServiceContext, username: string): Promise<{ wasOn: boolean }> {
  await requireAdmin(ctx);
  return resetTwoFactor(ctx, username);
}

/** Ends every session of the user (their API tokens stay: they are revoked one by one). */
export async function signAccountOutEverywhere(
  ctx: ServiceContext,
  username: string,
): Promise<{ sessionsEnded: number }> {
  await requireAdmin(ctx);
  const user = await describeUser(ctx, username);
  const sessionsEnded = await ctx.em.nativeDelete(SessionSchema, { userId: user.id });
  ctx.log.info({ userId: user.id, sessionsEnded }, 'sessions ended by an admin');
  await recordActivity(ctx, {
    action: 'sessions.ended',
    target: { kind: 'user', id: user.id, name: user.username },
    detail: `all, ${sessionsEnded}, by an admin`,
  });
  return { sessionsEnded };
}

/**
 * Deletes the user with everything they stored (the page names what goes and asks first). The
 * caller is another admin, so the site keeps one.
 */
export async function deleteAccount(ctx: ServiceContext, username: string) {
  await requireAnotherUser(ctx, username, 'delete');
  return deleteUser(ctx, username);
}
