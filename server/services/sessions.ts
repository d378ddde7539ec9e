// Logging in and out, recognising a session token, and the user's list of their sessions.
import { randomBytes } from 'node:crypto';
import { burnPasswordCheck, verifyPassword } from '../auth/passwords';
import { SESSION_RENEW_THRESHOLD_SECONDS } from '../auth/session-constants';
import { signSessionToken, verifySessionToken } from '../auth/tokens';
import type { AuthUser, ServiceContext, UserQuotaColumns } from '../context';
import { SessionSchema, type Session } from '../db/entities/session.entity';
import { type User, UserSchema } from '../db/entities/user.entity';
import { selectSessionUser } from '../db/sessions';
import { storedDateMillis } from '../db/stored-date';
import { recordActivity } from './activity';
import { AppError } from '../utilities/errors';
import { firstIssue, isRecordId, loginSchema } from '../schemas';
import { admitLoginAttempt, checkedUnderThrottle } from './login-throttle';
import { requireSessionUser } from './guards';
import { secondFactorAccepted, takeWrongCodesNotice, type WrongCodesNotice, wrongCodeError } from './two-factor';
import { describeUserAgent } from './user-agent';
import { findUserByUsername } from './users';

/** A session's last sight (time and address) is written at most this often. */
const LAST_SEEN_PRECISION_MS = 60_000;
/** User-Agent headers can be long; what is kept is for telling sessions apart. */
const MAX_USER_AGENT_LENGTH = 512;

const INVALID_CREDENTIALS = 'Invalid username or password';
const ACCOUNT_DISABLED = 'This account has been disabled. Ask an administrator.';

/** How a session began (ADR 0044): a password (with its code, if any) or the OpenID Connect provider. */
export type SignInMethod = 'password' | 'oidc';

/** The refusal of a password login while PASSWORD_LOGIN is off (the API says the same, docs/api.md). */
function passwordLoginOffMessage(config: ServiceContext['config']): string {
  return `Logging in with a password is turned off here: sign in with ${config.oidc?.displayName ?? 'the provider'}`;
}

export interface IssuedSession {
  user: AuthUser;
  token: string;
  /** Lifetime of the token; the cookie's Max-Age must equal it. */
  maxAgeSeconds: number;
  /** Set by a sign-in that has wrong two-factor codes to tell of (ADR 0058): the door shows it once. */
  wrongCodes?: WrongCodesNotice;
}

export async function login(ctx: ServiceContext, input: unknown): Promise<IssuedSession> {
  if (!ctx.config.passwordLogin) throw new AppError('FORBIDDEN', passwordLoginOffMessage(ctx.config));
  const parsed = loginSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { username, password } = parsed.data;
  const attempt = await admitLoginAttempt(ctx, username, ctx.clientAddress);

  const user = await findUserByUsername(ctx, username).catch(async (error: unknown) => {
    await attempt.abandoned();
    throw error;
  });
  // Same answer and the same bcrypt work whether the user is unknown or the password wrong.
  // With two-factor codes on, a wrong code fails like a wrong password; a missing one counts
  // neither way (ADR 0043).
  let codeWrong = false;
  const right = await checkedUnderThrottle(attempt, async () => {
    if (!(await (user ? verifyPassword(password, user.passwordHash) : burnPasswordCheck(password)))) return false;
    codeWrong = !(user && (await secondFactorAccepted(ctx, user, input)));
    return !codeWrong;
  });
  const tried = { id: user?.id ?? null, name: user?.username ?? username };
  const failed = (detail: string) =>
    recordActivity(ctx, { action: 'sign-in', outcome: 'failure', actor: tried, detail });
  if (codeWrong) {
    await failed('password, a wrong two-factor code');
    throw wrongCodeError();
  }
  if (!user || !right) {
    await failed(user ? 'password, wrong' : 'password, no such user');
    throw new AppError('UNAUTHORIZED', INVALID_CREDENTIALS);
  }
  // Told only to someone who knows the password: the account exists, an admin disabled it.
  if (user.disabledAt !== null) {
    await failed('password, account disabled');
    throw new AppError('FORBIDDEN', ACCOUNT_DISABLED);
  }
  return issueSession(ctx, user, 'password');
}

/**
 * A new session for a user whose sign-in succeeded (a password, or the provider's identity): the
 * same row, token and lifetime whichever way they came. Refuses a disabled account.
 */
export async function issueSession(
  ctx: ServiceContext,
  user: Pick<User, 'id' | 'username' | 'disabledAt'>,
  method: SignInMethod,
): Promise<IssuedSession> {
  if (user.disabledAt !== null) throw new AppError('FORBIDDEN', ACCOUNT_DISABLED);
  const now = Math.floor(ctx.clock.now() / 1000);
  const ttl = ctx.config.sessionTtlSeconds;
  const session: Session = {
    id: randomBytes(16).toString('base64url'),
    userId: user.id,
    expiresAt: new Date((now + ttl) * 1000),
    createdAt: new Date(now * 1000),
    userAgent: ctx.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null,
    address: ctx.clientAddress,
    lastSeenAt: new Date(now * 1000),
    signInMethod: method,
  };
  await ctx.em.insert(SessionSchema, session);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { lastSignInAt: session.createdAt });
  // Housekeeping: sessions that expired are of no use to anyone.
  await ctx.em.nativeDelete(SessionSchema, { expiresAt: { $lt: new Date(now * 1000) } });

  await recordActivity(ctx, {
    action: 'sign-in',
    actor: { id: user.id, name: user.username },
    target: { kind: 'session', id: session.id },
    detail: method,
  });
  const token = await signSessionToken({ sub: user.id, sid: session.id }, ttl, ctx.config.sessionSecret, now);
  const issued: IssuedSession = { user: { id: user.id, username: user.username }, token, maxAgeSeconds: ttl };
  const wrongCodes = await takeWrongCodesNotice(ctx, user.id);
  return wrongCodes ? { ...issued, wrongCodes } : issued;
}

export interface RecognisedSession {
  user: AuthUser;
  /** The user's quota setting, read with the session (ctx.userQuotaColumns). */
  quotaColumns: UserQuotaColumns;
  sessionId: string;
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
  // One query for the session and its user, written out: this runs on every request that carries a cookie.
  const row = await selectSessionUser(ctx.sql, claims.sid, claims.sub);
  if (!row) return null;
  const authUser = { id: row.id, username: row.username };
  const quotaColumns = { hasOwnQuota: row.hasOwnQuota, quotaBytes: row.quotaBytes };

  const nowMs = ctx.clock.now();
  const now = Math.floor(nowMs / 1000);
  const seen = { lastSeenAt: new Date(nowMs), address: ctx.clientAddress };
  const lastSeenAt = storedDateMillis(row.lastSeenAt);
  const seenLongAgo = lastSeenAt === null || lastSeenAt < nowMs - LAST_SEEN_PRECISION_MS;
  if (!options.allowRenewal || claims.exp - now >= SESSION_RENEW_THRESHOLD_SECONDS) {
    if (seenLongAgo) await ctx.em.nativeUpdate(SessionSchema, { id: claims.sid }, seen);
    return { user: authUser, quotaColumns, sessionId: claims.sid, renewed: null };
  }
  const ttl = ctx.config.sessionTtlSeconds;
  const extended = await ctx.em.nativeUpdate(
    SessionSchema,
    { id: claims.sid },
    { ...seen, expiresAt: new Date((now + ttl) * 1000) },
  );
  // Logged out between the lookup and here (another tab): no fresh token for a revoked session.
  if (extended === 0) return null;
  const renewedToken = await signSessionToken(
    { sub: authUser.id, sid: claims.sid },
    ttl,
    ctx.config.sessionSecret,
    now,
  );
  return {
    user: authUser,
    quotaColumns,
    sessionId: claims.sid,
    renewed: { user: authUser, token: renewedToken, maxAgeSeconds: ttl },
  };
}

/** Revokes the session the token names, if any. Always succeeds, even without a valid token. */
export async function logout(ctx: ServiceContext, token: string | null): Promise<void> {
  if (!token) return;
  const claims = await verifySessionToken(token, ctx.config.sessionSecret);
  if (!claims) return;
  const ended = await ctx.em.nativeDelete(SessionSchema, { id: claims.sid });
  if (ended) {
    const user = await ctx.em.findOne(
      UserSchema,
      { id: claims.sub },
      { fields: ['username'], disableIdentityMap: true },
    );
    await recordActivity(ctx, {
      action: 'sign-out',
      actor: { id: claims.sub, name: user?.username ?? null },
      target: { kind: 'session', id: claims.sid },
    });
  }
}

export interface SessionDto {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** e.g. "Firefox 133 on Linux"; "Unknown browser" when the request named none. */
  browser: string;
  address: string | null;
  /** The session this request came with. */
  current: boolean;
  /** How it began: 'password', 'oidc' (the provider), or null for sessions from before this was kept. */
  signInMethod: SignInMethod | null;
  /** The provider's name (OIDC_DISPLAY_NAME) for an 'oidc' session, shown as "via Acme"; otherwise null. */
  signedInVia: string | null;
}

/** The signed-in user's live sessions, most recently seen first. */
export async function listSessions(ctx: ServiceContext): Promise<SessionDto[]> {
  const user = requireSessionUser(ctx);
  const rows = await ctx.em.find(
    SessionSchema,
    { userId: user.id, expiresAt: { $gt: new Date(ctx.clock.now()) } },
    { orderBy: { lastSeenAt: 'desc', createdAt: 'desc', id: 'asc' }, disableIdentityMap: true },
  );
  return rows.map((row) => ({
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    // Sessions from before this column existed: their login is the last sight known.
    lastSeenAt: (row.lastSeenAt ?? row.createdAt).toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    browser: describeUserAgent(row.userAgent),
    address: row.address,
    current: row.id === ctx.sessionId,
    signInMethod: signInMethodOf(row.signInMethod),
    signedInVia: row.signInMethod === 'oidc' ? (ctx.config.oidc?.displayName ?? 'single sign-on') : null,
  }));
}

function signInMethodOf(stored: string | null | undefined): SignInMethod | null {
  return stored === 'password' || stored === 'oidc' ? stored : null;
}

/**
 * Logs one of the user's sessions out, on every instance at its next request. Another user's
 * session is as unknown as a missing one. Says whether it was the caller's own (its cookie must go).
 */
export async function revokeSession(ctx: ServiceContext, sessionId: string): Promise<{ wasCurrent: boolean }> {
  const user = requireSessionUser(ctx);
  const removed = isRecordId(sessionId)
    ? await ctx.em.nativeDelete(SessionSchema, { id: sessionId, userId: user.id })
    : 0;
  if (removed === 0) throw new AppError('NOT_FOUND', 'Session not found');
  ctx.log.info({ userId: user.id }, 'session revoked');
  await recordActivity(ctx, {
    action: 'sessions.ended',
    target: { kind: 'session', id: sessionId },
    detail: 'one session',
  });
  return { wasCurrent: sessionId === ctx.sessionId };
}

/** "Log out everywhere": every session of the user, this one included. API tokens stay (ADR 0016). */
export async function revokeAllSessions(ctx: ServiceContext): Promise<{ revoked: number }> {
  const user = requireSessionUser(ctx);
  const revoked = await ctx.em.nativeDelete(SessionSchema, { userId: user.id });
  ctx.log.info({ userId: user.id, revoked }, 'all sessions revoked');
  await recordActivity(ctx, {
    action: 'sessions.ended',
    target: { kind: 'user', id: user.id, name: user.username },
    detail: `all, ${revoked}`,
  });
  return { revoked };
}
