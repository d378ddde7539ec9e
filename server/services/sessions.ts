// Logging in and out, and recognising a session token (CONTRACT §3, §7).
import { randomBytes } from 'node:crypto';
import { burnPasswordCheck, verifyPassword } from '../auth/passwords';
import { SESSION_RENEW_THRESHOLD_SECONDS } from '../auth/session-constants';
import { signSessionToken, verifySessionToken } from '../auth/tokens';
import type { AuthUser, ServiceContext } from '../context';
import { SessionSchema } from '../db/entities/session.entity';
import { AppError } from '../errors';
import { firstIssue, loginSchema } from '../schemas';
import { admitLoginAttempt } from './login-throttle';
import { findUserByUsername } from './users';

export const INVALID_CREDENTIALS = 'Invalid username or password';

export interface IssuedSession {
  user: AuthUser;
  token: string;
  /** Lifetime of the token; the cookie's Max-Age must equal it. */
  maxAgeSeconds: number;
}

export async function login(ctx: ServiceContext, input: unknown): Promise<IssuedSession> {
  const parsed = loginSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { username, password } = parsed.data;
  const attempt = await admitLoginAttempt(ctx, username, ctx.clientAddress);

  let user: Awaited<ReturnType<typeof findUserByUsername>>;
  let valid: boolean;
  try {
    user = await findUserByUsername(ctx, username);
    // Same answer and the same bcrypt work whether the user is unknown or the password wrong.
    valid = user ? await verifyPassword(password, user.passwordHash) : await burnPasswordCheck(password);
  } catch (error) {
    await attempt.abandoned();
    throw error;
  }
  if (!user || !valid) {
    await attempt.failed();
    throw new AppError('UNAUTHORIZED', INVALID_CREDENTIALS);
  }
  await attempt.succeeded();

  const now = Math.floor(ctx.clock.now() / 1000);
  const ttl = ctx.config.sessionTtlSeconds;
  const session = ctx.em.create(SessionSchema, {
    id: randomBytes(16).toString('base64url'),
    userId: user.id,
    expiresAt: new Date((now + ttl) * 1000),
    createdAt: new Date(now * 1000),
  });
  await ctx.em.flush();
  // Housekeeping: sessions that expired are of no use to anyone.
  await ctx.em.nativeDelete(SessionSchema, { expiresAt: { $lt: new Date(now * 1000) } });

  const token = await signSessionToken({ sub: user.id, sid: session.id }, ttl, ctx.config.sessionSecret, now);
  return { user: { id: user.id, username: user.username }, token, maxAgeSeconds: ttl };
}

export interface RecognisedSession {
  user: AuthUser;
  /** A fresh full-lifetime session when the presented one was close to expiry. */
  renewed: IssuedSession | null;
}

/**
 * The user a token belongs to, or null for any token that is not valid: bad signature,
 * expired, revoked by logout, or whose user no longer exists.
 */
export async function recogniseSession(
  ctx: ServiceContext,
  token: string,
  options: { allowRenewal: boolean },
): Promise<RecognisedSession | null> {
  const claims = await verifySessionToken(token, ctx.config.sessionSecret);
  if (!claims) return null;
  // One query for the session and its user (tables and columns as the migrations create them):
  // this runs on every request that carries a cookie.
  const row: AuthUser | undefined = await ctx.em
    .getKnex()('sessions')
    .join('users', 'users.id', 'sessions.user_id')
    .where({ 'sessions.id': claims.sid, 'sessions.user_id': claims.sub })
    .first('users.id as id', 'users.username as username');
  if (!row) return null;
  const authUser = { id: row.id, username: row.username };

  const now = Math.floor(ctx.clock.now() / 1000);
  if (!options.allowRenewal || claims.exp - now >= SESSION_RENEW_THRESHOLD_SECONDS) {
    return { user: authUser, renewed: null };
  }
  const ttl = ctx.config.sessionTtlSeconds;
  const extended = await ctx.em.nativeUpdate(SessionSchema, { id: claims.sid }, { expiresAt: new Date((now + ttl) * 1000) });
  // Logged out between the lookup and here (another tab): no fresh token for a revoked session.
  if (extended === 0) return null;
  const renewedToken = await signSessionToken({ sub: authUser.id, sid: claims.sid }, ttl, ctx.config.sessionSecret, now);
  return { user: authUser, renewed: { user: authUser, token: renewedToken, maxAgeSeconds: ttl } };
}

/** Revokes the session the token names, if any. Always succeeds (CONTRACT §3). */
export async function logout(ctx: ServiceContext, token: string | null): Promise<void> {
  if (!token) return;
  const claims = await verifySessionToken(token, ctx.config.sessionSecret);
  if (claims) await ctx.em.nativeDelete(SessionSchema, { id: claims.sid });
}

/** Throws UNAUTHORIZED unless a user is signed in; the one guard every protected service uses. */
export function requireUser(ctx: ServiceContext): AuthUser {
  if (!ctx.user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  return ctx.user;
}
