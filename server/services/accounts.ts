// What admins do to accounts (npm run users, ADR 0018): list them with their usage, set a
// password, disable and enable, delete with everything they own, and set a quota. These
// functions name users by username and trust their caller: only the CLI calls them.
import { readSize } from '../utilities/byte-sizes';
import type { ServiceContext } from '../context';
import { hashPassword } from '../auth/passwords';
import { ResumableUploadSchema } from '../db/entities/resumable-upload.entity';
import { FileSchema } from '../db/entities/file.entity';
import { SessionSchema } from '../db/entities/session.entity';
import { UserSchema, type User } from '../db/entities/user.entity';
import { countFilesAndBytesByUser } from '../db/usage';
import { recordActivity } from './activity';
import { AppError } from '../utilities/errors';
import { firstIssue, newPasswordSchema } from '../schemas';
import { quotaOf, usageOf, type Usage } from './quotas';
import { discardUploadsOf } from './resumable-uploads';

export interface UserSummary {
  id: string;
  username: string;
  createdAt: string;
  files: number;
  bytes: number;
  /** The quota that applies, in bytes; null: unlimited. */
  quotaBytes: number | null;
  /** Whether that quota is the user's own or DEFAULT_QUOTA_BYTES. */
  quotaSource: 'own' | 'default';
  disabled: boolean;
  /** The OpenID Connect subject linked to the account (ADR 0044); null: none. */
  oidcSubject: string | null;
  /** Whether the user administers the site (ADR 0083). */
  admin: boolean;
}

async function requireUserNamed(ctx: ServiceContext, username: string): Promise<User> {
  // Read afresh each time: a command changes the row with direct updates, then describes it.
  const user = await ctx.em.findOne(UserSchema, { usernameKey: username.toLowerCase() }, { refresh: true });
  if (!user) throw new AppError('NOT_FOUND', `No user named "${username}"`);
  return user;
}

function summarise(ctx: ServiceContext, user: User, usage: Usage): UserSummary {
  return {
    id: user.id,
    username: user.username,
    createdAt: new Date(user.createdAt).toISOString(),
    files: usage.files,
    bytes: usage.bytes,
    quotaBytes: quotaOf(ctx.config, user),
    quotaSource: user.hasOwnQuota ? 'own' : 'default',
    disabled: user.disabledAt !== null,
    oidcSubject: user.oidcSubject ?? null,
    admin: user.isAdmin ?? false,
  };
}

/** Every user, by name, with their files, bytes used, quota and state. */
export async function listUsers(ctx: ServiceContext): Promise<UserSummary[]> {
  const users = await ctx.em.find(UserSchema, {}, { orderBy: { usernameKey: 'asc' }, disableIdentityMap: true });
  const byUser = await countFilesAndBytesByUser(ctx.em);
  return users.map((user) => summarise(ctx, user, byUser.get(user.id) ?? { files: 0, bytes: 0 }));
}

export async function describeUser(ctx: ServiceContext, username: string): Promise<UserSummary> {
  const user = await requireUserNamed(ctx, username);
  return summarise(ctx, user, await usageOf(ctx, user.id));
}

/** A new password (same rules as registration); every session of the user is logged out. */
export async function setUserPassword(
  ctx: ServiceContext,
  username: string,
  password: string,
): Promise<{ sessionsRevoked: number }> {
  const parsed = newPasswordSchema.safeParse(password);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const user = await requireUserNamed(ctx, username);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { passwordHash: await hashPassword(parsed.data) });
  const sessionsRevoked = await ctx.em.nativeDelete(SessionSchema, { userId: user.id });
  ctx.log.info({ userId: user.id, sessionsRevoked }, 'password set by an admin');
  await recordActivity(ctx, { action: 'password.changed', target: targetOf(user), detail: 'set by an admin' });
  return { sessionsRevoked };
}

/**
 * Disables or enables an account. Disabled: no login, sessions deleted, tokens refused (kept,
 * so enabling brings them back), share links answer 404. Enabled: all of it works again.
 */
export async function setUserDisabled(
  ctx: ServiceContext,
  username: string,
  disabled: boolean,
): Promise<{ changed: boolean }> {
  const user = await requireUserNamed(ctx, username);
  if ((user.disabledAt !== null) === disabled) return { changed: false };
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { disabledAt: disabled ? new Date(ctx.clock.now()) : null });
  if (disabled) await ctx.em.nativeDelete(SessionSchema, { userId: user.id });
  ctx.log.info({ userId: user.id }, disabled ? 'user disabled' : 'user enabled');
  await recordActivity(ctx, { action: disabled ? 'account.disabled' : 'account.enabled', target: targetOf(user) });
  return { changed: true };
}

/**
 * Deletes a user and everything they own: one DELETE of the user row, whose foreign keys take
 * their files' records, sessions, tokens and quota holds with it; then the content. Content
 * that cannot be removed now has no record any more, so the housekeeping sweep removes it.
 */
export async function deleteUser(ctx: ServiceContext, username: string): Promise<Usage> {
  const user = await requireUserNamed(ctx, username);
  const files = await ctx.em.find(
    FileSchema,
    { userId: user.id },
    { fields: ['storedName', 'size'], disableIdentityMap: true },
  );
  const uploads = await ctx.em.find(
    ResumableUploadSchema,
    { userId: user.id, finishedAt: null },
    { fields: ['id', 'storedName', 'contentState'], disableIdentityMap: true },
  );
  await ctx.em.nativeDelete(UserSchema, { id: user.id });
  await discardUploadsOf(ctx, uploads);
  for (const file of files) {
    try {
      await ctx.store.delete(file.storedName);
    } catch (error) {
      ctx.log.warn({ err: error, storedName: file.storedName }, 'content not removed; left to the sweep');
    }
  }
  ctx.log.info({ userId: user.id, files: files.length }, 'user deleted');
  const removed = { files: files.length, bytes: files.reduce((sum, file) => sum + Number(file.size), 0) };
  await recordActivity(ctx, {
    action: 'account.deleted',
    target: targetOf(user),
    detail: `${removed.files} files, ${removed.bytes} bytes`,
  });
  return removed;
}

/**
 * Sets a user's quota: a size in either unit system (`readSize`, ADR 0065), `none` (unlimited,
 * whatever the default), or `default` (back to DEFAULT_QUOTA_BYTES). Files already stored stay,
 * even above a lowered quota; new uploads wait.
 */
/** A quota as typed: a size in either unit system, `none` (unlimited) or `default`. */
export function quotaChoice(value: string): Pick<User, 'hasOwnQuota' | 'quotaBytes'> {
  const choice = value.trim().toLowerCase();
  if (choice === 'none') return { hasOwnQuota: true, quotaBytes: null };
  if (choice === 'default') return { hasOwnQuota: false, quotaBytes: null };
  const bytes = readSize(value);
  if (bytes === null)
    throw new AppError(
      'BAD_REQUEST',
      `Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "${value}"`,
    );
  return { hasOwnQuota: true, quotaBytes: bytes };
}

export async function setUserQuota(ctx: ServiceContext, username: string, value: string): Promise<UserSummary> {
  const change = quotaChoice(value);
  const user = await requireUserNamed(ctx, username);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, change);
  ctx.log.info({ userId: user.id, quotaBytes: change.quotaBytes, own: change.hasOwnQuota }, 'quota set');
  await recordActivity(ctx, {
    action: 'account.quota',
    target: targetOf(user),
    detail: change.hasOwnQuota
      ? change.quotaBytes === null
        ? 'unlimited'
        : `${change.quotaBytes} bytes`
      : 'the default',
  });
  return describeUser(ctx, username);
}

/**
 * Links the provider's identity `subject` (its `sub`) to the account: that identity signs in as
 * it from now on (ADR 0044). An identity already linked to another account is refused.
 */
export async function linkOidcSubject(
  ctx: ServiceContext,
  username: string,
  subject: string,
): Promise<{ changed: boolean }> {
  const sub = subject.trim();
  if (sub === '' || sub.length > 255) throw new AppError('BAD_REQUEST', 'The subject must be 1-255 characters');
  const user = await requireUserNamed(ctx, username);
  if (user.oidcSubject === sub) return { changed: false };
  const holder = await ctx.em.findOne(UserSchema, { oidcSubject: sub }, { refresh: true });
  if (holder) throw new AppError('CONFLICT', `The subject "${sub}" is already linked to ${holder.username}`);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { oidcSubject: sub });
  ctx.log.info({ userId: user.id }, 'provider identity linked by an admin');
  return { changed: true };
}

/** Unlinks the account's provider identity: it signs in with its password only (or not at all). */
export async function unlinkOidcSubject(ctx: ServiceContext, username: string): Promise<{ changed: boolean }> {
  const user = await requireUserNamed(ctx, username);
  if ((user.oidcSubject ?? null) === null) return { changed: false };
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { oidcSubject: null });
  ctx.log.info({ userId: user.id }, 'provider identity unlinked by an admin');
  return { changed: true };
}

/** A user as an activity event names its target. */
function targetOf(user: { id: string; username: string }) {
  return { kind: 'user' as const, id: user.id, name: user.username };
}
