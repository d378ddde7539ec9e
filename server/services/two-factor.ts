// Two-factor codes for password logins (ADR 0043): a TOTP secret (RFC 6238, 30-second steps,
// 6 digits) the user's authenticator app holds, and ten one-time recovery codes. Setting it up
// takes two steps (begin: a secret; confirm: a first code from it); once on, a password login
// also needs a current code or an unused recovery code. Each code is accepted once: the last
// step accepted is kept, and only a later step's code is taken after it. Guesses count per
// account from every address; the wrong codes that lock the code step are kept on the user row
// until its owner's next sign-in tells them (ADR 0058).
import { createHash, randomBytes } from 'node:crypto';
import { authenticator } from 'otplib';
import { z } from 'zod';
import type { ServiceContext } from '../context';
import { UserSchema, type User } from '../db/entities/user.entity';
import { addWrongCodesLockOut } from '../db/users';
import { AppError } from '../utilities/errors';
import { firstIssue } from '../schemas';
import { requireSessionUser } from './guards';
import { admitCodeGuess, admitLoginAttempt, checkedUnderThrottle } from './login-throttle';
import { recordActivity } from './activity';

const STEP_MS = 30_000;
/** Codes of the step before and after the current one are taken too (a clock a little off). */
const WINDOW_STEPS = 1;
const RECOVERY_CODE_COUNT = 10;
const CODE_REQUIRED = 'A two-factor code is required';
const CODE_WRONG = 'The two-factor code is wrong or was already used';

/**
 * A password login that needs a two-factor code it did not get (or got wrong): a 401 whose body
 * says so (`twoFactorRequired: true`), so that a client asks for the code.
 */
export class TwoFactorRequiredError extends AppError {
  override name = 'TwoFactorRequiredError';
  /**
   * @param userId set when the first factor was right and only the code is missing: the login
   * page's second step is bound to it (never shown to the caller).
   */
  constructor(
    message = CODE_REQUIRED,
    readonly userId: string | null = null,
  ) {
    super('UNAUTHORIZED', message);
  }
}

const codeSchema = z.object({
  code: z
    .string({ required_error: 'A two-factor code is required', invalid_type_error: 'The code must be a string' })
    .max(64, 'The code must be at most 64 characters'),
});

/** Spaces and dashes are for reading; recovery codes are taken in either case. */
function normalise(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

const isTimeCode = (code: string) => /^\d{6}$/.test(code);

function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

/** `xxxx-xxxx-xxxx-xxxx` of hex digits: 64 random bits each. */
function newRecoveryCode(): string {
  return randomBytes(8).toString('hex').match(/.{4}/g)?.join('-') ?? '';
}

/** The step whose code `code` is, within the window around `nowMs`; null when none. */
function matchingStep(secret: string, code: string, nowMs: number): number | null {
  if (!isTimeCode(code)) return null;
  const delta = authenticator
    .clone({ epoch: nowMs, step: STEP_MS / 1000, window: WINDOW_STEPS })
    .checkDelta(code, secret);
  return delta === null ? null : Math.floor(nowMs / STEP_MS) + delta;
}

async function freshUser(ctx: ServiceContext, id: string): Promise<User> {
  const user = await ctx.em.findOne(UserSchema, { id }, { refresh: true });
  if (!user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  return user;
}

/**
 * Takes a time code or a recovery code for a user with two-factor codes on, at most once each:
 * a time code only if its step is later than the last one accepted, a recovery code only while
 * unused (both decided by one conditional UPDATE, so two requests cannot both use a code).
 */
async function acceptCode(ctx: ServiceContext, user: User, rawCode: string): Promise<boolean> {
  const code = normalise(rawCode);
  if (isTimeCode(code)) {
    const step = user.totpSecret ? matchingStep(user.totpSecret, code, ctx.clock.now()) : null;
    if (step === null) return false;
    const taken = await ctx.em.nativeUpdate(
      UserSchema,
      { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
      { totpLastStep: step },
    );
    return taken === 1;
  }
  const hash = hashRecoveryCode(code);
  // A few rounds: another recovery code used at the same moment changes the list under this one.
  for (let round = 0; round < 3; round++) {
    const current = round === 0 ? user : await freshUser(ctx, user.id);
    const hashes = JSON.parse(current.recoveryCodeHashes ?? '[]') as string[];
    if (!hashes.includes(hash)) return false;
    const taken = await ctx.em.nativeUpdate(
      UserSchema,
      { id: user.id, recoveryCodeHashes: current.recoveryCodeHashes ?? null },
      { recoveryCodeHashes: JSON.stringify(hashes.filter((h) => h !== hash)) },
    );
    if (taken === 1) {
      ctx.log.info({ userId: user.id, left: hashes.length - 1 }, 'recovery code used');
      return true;
    }
  }
  return false;
}

/**
 * One guess at a user's code, counted for the account from every address (ADR 0058): refused
 * with TOO_MANY_REQUESTS while too many wrong ones lock its code step.
 */
async function guessCode(ctx: ServiceContext, user: User, rawCode: string): Promise<boolean> {
  const guess = await admitCodeGuess(ctx, user.id, (wrongCodes) => recordLockOut(ctx, user.id, wrongCodes));
  return checkedUnderThrottle(guess, () => acceptCode(ctx, user, rawCode));
}

/** Wrong codes locked the account's code step: kept (added up) for its owner's next sign-in. */
async function recordLockOut(ctx: ServiceContext, userId: string, wrongCodes: number): Promise<void> {
  await addWrongCodesLockOut(ctx.em, userId, wrongCodes, ctx.clock.now());
  ctx.log.warn({ userId, wrongCodes }, 'two-factor code step locked: too many wrong codes');
}

/** What a sign-in tells the owner of wrong codes tried since they last signed in (ADR 0058). */
export interface WrongCodesNotice {
  /** Wrong codes that locked the code step, all lock-outs added up. */
  count: number;
  /** When the last lock-out began (ISO 8601). */
  lastAt: string;
}

/**
 * The wrong codes not yet told to the user, taken (cleared) so that one sign-in tells them once;
 * null when there are none. Two sign-ins at the same moment: one of them tells.
 */
export async function takeWrongCodesNotice(ctx: ServiceContext, userId: string): Promise<WrongCodesNotice | null> {
  const user = await ctx.em.findOne(UserSchema, { id: userId, unreportedWrongCodes: { $gt: 0 } }, { refresh: true });
  if (!user?.unreportedWrongCodes) return null;
  const { unreportedWrongCodes: count, wrongCodesLockedAt: lockedAt = null } = user;
  const taken = await ctx.em.nativeUpdate(
    UserSchema,
    { id: userId, unreportedWrongCodes: count, wrongCodesLockedAt: lockedAt },
    { unreportedWrongCodes: 0, wrongCodesLockedAt: null },
  );
  if (taken !== 1) return null;
  return { count, lastAt: new Date(lockedAt ?? ctx.clock.now()).toISOString() };
}

/**
 * The second factor of a password login whose password was right: true when the user has no
 * two-factor codes or `input.code` is accepted, false for a wrong or used code; throws
 * TwoFactorRequiredError when a code is needed and none came.
 */
export async function secondFactorAccepted(ctx: ServiceContext, user: User, input: unknown): Promise<boolean> {
  if (!user.twoFactorEnabled) return true;
  const code = (input as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.trim() === '') throw new TwoFactorRequiredError(CODE_REQUIRED, user.id);
  return guessCode(ctx, user, code.slice(0, 64));
}

/** The answer to a right password with a wrong or used code. */
export function wrongCodeError(): TwoFactorRequiredError {
  return new TwoFactorRequiredError(CODE_WRONG);
}

export interface TwoFactorStatus {
  enabled: boolean;
  /** Recovery codes not yet used (0 while off). */
  recoveryCodesLeft: number;
}

/** Whether the signed-in user has two-factor codes on. */
export async function twoFactorStatus(ctx: ServiceContext): Promise<TwoFactorStatus> {
  const user = await freshUser(ctx, requireSessionUser(ctx).id);
  const left = user.twoFactorEnabled ? (JSON.parse(user.recoveryCodeHashes ?? '[]') as string[]).length : 0;
  return { enabled: Boolean(user.twoFactorEnabled), recoveryCodesLeft: left };
}

export interface TwoFactorEnrolment {
  /** Base32, for typing into an authenticator app. */
  secret: string;
  /** `otpauth://totp/…`, what a QR code carries. */
  otpauthUri: string;
}

/** The site's name (SITE_NAME) is what authenticator apps show beside the username. */
function enrolmentOf(ctx: ServiceContext, user: User, secret: string): TwoFactorEnrolment {
  return { secret, otpauthUri: authenticator.keyuri(user.username, ctx.config.siteName, secret) };
}

/**
 * Begins setting up two-factor codes: a new secret, kept aside until a first code confirms it
 * (beginning again replaces it). Refused while they are on.
 */
export async function beginTwoFactor(ctx: ServiceContext): Promise<TwoFactorEnrolment> {
  const user = await freshUser(ctx, requireSessionUser(ctx).id);
  if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor codes are already on; turn them off first');
  const secret = authenticator.generateSecret(20);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, { totpPendingSecret: secret });
  return enrolmentOf(ctx, user, secret);
}

/**
 * The set-up begun and not confirmed yet, to show again (a wrong first code keeps it, ADR 0063);
 * null when none is under way.
 */
export async function getTwoFactorSetUp(ctx: ServiceContext): Promise<TwoFactorEnrolment | null> {
  const user = await freshUser(ctx, requireSessionUser(ctx).id);
  if (user.twoFactorEnabled || !user.totpPendingSecret) return null;
  return enrolmentOf(ctx, user, user.totpPendingSecret);
}

/**
 * Confirms the secret begun with a first code from it: two-factor codes are on from now, and the
 * ten recovery codes are returned (this once; only their hashes are kept). A wrong code changes
 * nothing: the same secret takes another code (ADR 0063).
 */
export async function confirmTwoFactor(ctx: ServiceContext, input: unknown): Promise<{ recoveryCodes: string[] }> {
  const signedIn = requireSessionUser(ctx);
  const parsed = codeSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const user = await freshUser(ctx, signedIn.id);
  if (user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor codes are already on');
  const pending = user.totpPendingSecret;
  if (!pending) throw new AppError('CONFLICT', 'Begin setting up two-factor codes first');
  const step = matchingStep(pending, normalise(parsed.data.code), ctx.clock.now());
  if (step === null)
    throw new AppError('BAD_REQUEST', 'The code is wrong; check that the clock of your device is right and try again');

  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const hashes = recoveryCodes.map((code) => hashRecoveryCode(normalise(code)));
  const changed = await ctx.em.nativeUpdate(
    UserSchema,
    { id: user.id, totpPendingSecret: pending, twoFactorEnabled: false },
    {
      twoFactorEnabled: true,
      totpSecret: pending,
      totpPendingSecret: null,
      totpLastStep: step,
      recoveryCodeHashes: JSON.stringify(hashes),
    },
  );
  if (changed !== 1) throw new AppError('CONFLICT', 'Two-factor codes were changed meanwhile; begin again');
  ctx.log.info({ userId: user.id }, 'two-factor codes turned on');
  await recordActivity(ctx, { action: 'two-factor.on', target: { kind: 'user', id: user.id, name: user.username } });
  return { recoveryCodes };
}

const TWO_FACTOR_OFF = {
  twoFactorEnabled: false,
  totpSecret: null,
  totpPendingSecret: null,
  totpLastStep: null,
  recoveryCodeHashes: null,
};

/**
 * Turns two-factor codes off with a current code or an unused recovery code, guessed under the
 * login throttle (a stolen cookie cannot try them all).
 */
export async function disableTwoFactor(ctx: ServiceContext, input: unknown): Promise<void> {
  const signedIn = requireSessionUser(ctx);
  const parsed = codeSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const user = await freshUser(ctx, signedIn.id);
  if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Two-factor codes are not on');
  const attempt = await admitLoginAttempt(ctx, user.username, ctx.clientAddress);
  const right = await checkedUnderThrottle(attempt, () => guessCode(ctx, user, parsed.data.code));
  if (!right) throw new AppError('BAD_REQUEST', CODE_WRONG);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, TWO_FACTOR_OFF);
  ctx.log.info({ userId: user.id }, 'two-factor codes turned off');
  await recordActivity(ctx, { action: 'two-factor.off', target: { kind: 'user', id: user.id, name: user.username } });
}

/** An administrator turns a user's two-factor codes off (a lost phone and lost recovery codes). */
export async function resetTwoFactor(ctx: ServiceContext, username: string): Promise<{ wasOn: boolean }> {
  const user = await ctx.em.findOne(UserSchema, { usernameKey: username.toLowerCase() }, { refresh: true });
  if (!user) throw new AppError('NOT_FOUND', `No user named "${username}"`);
  await ctx.em.nativeUpdate(UserSchema, { id: user.id }, TWO_FACTOR_OFF);
  ctx.log.info({ userId: user.id }, 'two-factor codes reset');
  await recordActivity(ctx, {
    action: 'two-factor.off',
    target: { kind: 'user', id: user.id, name: user.username },
    detail: 'reset by an admin',
  });
  return { wasOn: Boolean(user.twoFactorEnabled) };
}
