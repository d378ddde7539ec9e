import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../auth/passwords';
import type { AuthUser, ServiceContext } from '../context';
import { SessionSchema } from '../db/entities/session.entity';
import { UserSchema } from '../db/entities/user.entity';
import { recordActivity } from './activity';
import { AppError } from '../utilities/errors';
import { changePasswordSchema, firstIssue, registerUserSchema, usernameSchema } from '../schemas';
import { admitLoginAttempt, checkedUnderThrottle } from './login-throttle';
import { requireSessionUser, requireUser } from './guards';

const TAKEN = 'Username is already taken';

/**
 * Creates a user (an admin with `admin`: ADR 0083; with a quota of their own with `quota`):
 * usernames are unique regardless of case.
 */
export async function registerUser(
  ctx: ServiceContext,
  input: unknown,
  {
    admin = false,
    quota = { hasOwnQuota: false, quotaBytes: null },
  }: { admin?: boolean; quota?: { hasOwnQuota: boolean; quotaBytes: number | null } } = {},
): Promise<AuthUser> {
  const parsed = registerUserSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { username, password } = parsed.data;
  const usernameKey = username.toLowerCase();

  if (await ctx.em.count(UserSchema, { usernameKey })) throw new AppError('CONFLICT', TAKEN);
  const user = ctx.em.create(UserSchema, {
    id: randomUUID(),
    username,
    usernameKey,
    passwordHash: await hashPassword(password),
    createdAt: new Date(ctx.clock.now()),
    disabledAt: null,
    ...quota,
    isAdmin: admin,
  });
  try {
    await ctx.em.flush();
  } catch (error) {
    // Another registration of the same name won the race between the check and the insert.
    if (error instanceof UniqueConstraintViolationException) throw new AppError('CONFLICT', TAKEN);
    throw error;
  }
  await recordActivity(ctx, {
    action: 'account.created',
    target: { kind: 'user', id: user.id, name: user.username },
    detail: admin ? 'an admin' : null,
  });
  return { id: user.id, username: user.username };
}

export async function findUserByUsername(ctx: ServiceContext, username: string) {
  // A name outside the usernames' alphabet names nobody (and a NUL is refused by PostgreSQL).
  if (!usernameSchema.safeParse(username).success) return null;
  return ctx.em.findOne(UserSchema, { usernameKey: username.toLowerCase() });
}

const WRONG_CURRENT_PASSWORD = 'The current password is wrong';

/**
 * The signed-in user changes their password: the current one is checked (and throttled like a
 * login, so a stolen cookie cannot guess it), then every other session is logged out. This
 * session stays; API tokens stay too (ADR 0016). Returns how many sessions were logged out.
 */
export async function changeOwnPassword(
  ctx: ServiceContext,
  input: unknown,
): Promise<{ otherSessionsRevoked: number }> {
  const signedIn = requireSessionUser(ctx);
  const parsed = changePasswordSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { currentPassword, newPassword } = parsed.data;

  const user = await ctx.em.findOne(UserSchema, { id: signedIn.id });
  if (!user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  const attempt = await admitLoginAttempt(ctx, user.username, ctx.clientAddress);
  const right = await checkedUnderThrottle(attempt, () => verifyPassword(currentPassword, user.passwordHash));
  if (!right) throw new AppError('BAD_REQUEST', WRONG_CURRENT_PASSWORD);

  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { passwordHash: await hashPassword(newPassword) });
  const others = ctx.sessionId === null ? { userId: user.id } : { userId: user.id, id: { $ne: ctx.sessionId } };
  const otherSessionsRevoked = await ctx.em.nativeDelete(SessionSchema, others);
  ctx.log.info({ userId: user.id, otherSessionsRevoked }, 'password changed');
  await recordActivity(ctx, { action: 'password.changed', target: { kind: 'user', id: user.id, name: user.username } });
  return { otherSessionsRevoked };
}

/** How My files shows a user's files (ADR 0046): rows of a table, or a gallery of cards. */
const FILE_LIST_VIEWS = ['table', 'gallery'] as const;
export type FileListView = (typeof FILE_LIST_VIEWS)[number];

const fileListViewSchema = z.enum(FILE_LIST_VIEWS, {
  errorMap: () => ({ message: `fileListView must be one of ${FILE_LIST_VIEWS.join(', ')}` }),
});

/** What PATCH /api/v1/me and the view switch of My files may change: the view, nothing else. */
export const accountPreferencesSchema = z.object({ fileListView: fileListViewSchema }).strict();

/** Whether `value` names a view (the `?view=` of My files): anything else is no choice at all. */
export function isFileListView(value: unknown): value is FileListView {
  return fileListViewSchema.safeParse(value).success;
}

/** The signed-in user's view of My files; 'table' until they choose. A token may read it. */
export async function myFileListView(ctx: ServiceContext): Promise<FileListView> {
  const { id } = requireUser(ctx);
  const user = await ctx.em.findOne(UserSchema, { id }, { fields: ['fileListView'] });
  return isFileListView(user?.fileListView) ? user.fileListView : 'table';
}

/**
 * Stores the signed-in user's choice of view for My files, kept across logins and devices.
 * `input` is `{ fileListView }`; anything else is a 400 naming what is wrong.
 */
export async function setMyPreferences(ctx: ServiceContext, input: unknown): Promise<{ fileListView: FileListView }> {
  const { id } = requireUser(ctx);
  const parsed = accountPreferencesSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { fileListView } = parsed.data;
  await ctx.em.nativeUpdate(UserSchema, { id }, { fileListView });
  return { fileListView };
}
