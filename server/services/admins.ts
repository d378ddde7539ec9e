// Who administers the site (ADR 0083): a user with the admin right sees the console under
// /admin and its API; to anyone else those addresses do not exist (404). The right is given and
// taken with `npm run users -- admin <name> on|off`, `register-user --admin`, or by another admin;
// the last admin cannot lose it, so that a site always has one once it had one.
import { LockMode } from '@mikro-orm/core';
import type { AuthUser, ServiceContext } from '../context';
import { UserSchema } from '../db/entities/user.entity';
import { recordActivity } from './activity';
import { AppError } from '../utilities/errors';

/** The line that says how to make the first admin, for an install that has none. */
export const NO_ADMIN_HINT = 'No admin yet: make one with `npm run users -- admin <username> on`';

/**
 * Whether the signed-in user (session or API token) is an enabled admin; the header shows them
 * the way to the console. Read afresh: a right taken holds at once. A database that cannot be
 * reached is an error, not a "no".
 */
export async function isAdmin(ctx: ServiceContext): Promise<boolean> {
  if (!ctx.user) return false;
  const row = await ctx.em.findOne(
    UserSchema,
    { id: ctx.user.id, disabledAt: null },
    { fields: ['isAdmin'], disableIdentityMap: true },
  );
  return row?.isAdmin === true;
}

/** The signed-in user when they are an admin; otherwise NOT_FOUND, as for an address that does not exist. */
export async function requireAdmin(ctx: ServiceContext): Promise<AuthUser> {
  if (!ctx.user || !(await isAdmin(ctx))) throw new AppError('NOT_FOUND', 'Not found');
  return ctx.user;
}

/** How many enabled users hold the admin right. */
export function countAdmins(ctx: ServiceContext): Promise<number> {
  return ctx.em.count(UserSchema, { isAdmin: true, disabledAt: null });
}

/**
 * Gives or takes the admin right. Taking it from the last enabled admin is refused (CONFLICT).
 * The admins' rows are locked meanwhile (PostgreSQL; SQLite writes one at a time anyway), so two
 * admins taking the right from each other at once cannot leave none.
 */
export async function setAdmin(
  ctx: ServiceContext,
  username: string,
  admin: boolean,
): Promise<{ changed: boolean; username: string }> {
  const result = await ctx.em.transactional(async (em) => {
    const user = await em.findOne(UserSchema, { usernameKey: username.toLowerCase() }, { refresh: true });
    if (!user) throw new AppError('NOT_FOUND', `No user named "${username}"`);
    if (Boolean(user.isAdmin) === admin) return { changed: false, username: user.username, id: user.id };
    if (!admin) {
      const admins = await em.find(
        UserSchema,
        { isAdmin: true, disabledAt: null },
        { fields: ['id'], lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (admins.every((other) => other.id === user.id))
        throw new AppError(
          'CONFLICT',
          `${user.username} is the last admin: make another user an admin first, so that someone can still administer the site`,
        );
    }
    user.isAdmin = admin;
    ctx.log.info({ userId: user.id }, admin ? 'admin right given' : 'admin right taken');
    return { changed: true, username: user.username, id: user.id };
  });
  // After the transaction: an event is never written inside another's unit of work.
  if (!result.changed) return { changed: false, username: result.username };
  await recordActivity(ctx, {
    action: 'account.admin',
    target: { kind: 'user', id: result.id, name: result.username },
    detail: admin ? 'on' : 'off',
  });
  return { changed: true, username: result.username };
}
