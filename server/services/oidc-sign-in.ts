// Which existing account a provider's identity signs in as (ADR 0044), and the session it gets.
// Nothing is ever created here: accounts come from the admin CLI only.
// - The account linked to the identity's subject (`npm run users -- link-oidc`), else
// - with OIDC_MATCH_CLAIM, the account whose username equals that claim (case-insensitively, as
//   usernames are) and that is linked to no other identity: it is linked from then on.
// A disabled account is refused as with a password. With OIDC_REQUIRE_2FA=on a user with
// two-factor codes on is asked for a code next (the login page's second step).
import type { ServiceContext } from '../context';
import { UserSchema, type User } from '../db/entities/user.entity';
import { AppError } from '../utilities/errors';
import { usernameSchema } from '../schemas';
import { admitLoginAttempt, checkedUnderThrottle, markSignInStepFinished, signInStepFinished } from './login-throttle';
import { type IssuedSession, issueSession } from './sessions';
import { secondFactorAccepted, wrongCodeError } from './two-factor';

/** An identity the provider vouched for (its ID token checked). */
export interface VerifiedIdentity {
  subject: string;
  claims: Record<string, unknown>;
}

export type IdentitySignIn =
  | { kind: 'signed-in'; session: IssuedSession }
  /** The provider signed them in; their two-factor code comes next. */
  | { kind: 'code-step'; userId: string };

/** Refused: the identity is linked to no account here, and no account is made for it. */
export class NoAccountForIdentityError extends AppError {
  override name = 'NoAccountForIdentityError';
  constructor() {
    super('FORBIDDEN', 'No account here is linked to this identity');
  }
}

export async function signInWithIdentity(ctx: ServiceContext, identity: VerifiedIdentity): Promise<IdentitySignIn> {
  const settings = ctx.config.oidc;
  if (!settings) throw new AppError('NOT_FOUND', 'Sign-in with a provider is not set up');
  const user =
    (await ctx.em.findOne(UserSchema, { oidcSubject: identity.subject }, { refresh: true })) ??
    (await accountMatchingClaim(ctx, identity));
  if (!user) {
    ctx.log.info({ subject: identity.subject }, 'provider sign-in refused: no account for the identity');
    throw new NoAccountForIdentityError();
  }
  if (user.disabledAt === null && settings.requireTwoFactor && user.twoFactorEnabled) {
    return { kind: 'code-step', userId: user.id };
  }
  return { kind: 'signed-in', session: await issueSession(ctx, user, 'oidc') };
}

/** With OIDC_MATCH_CLAIM: the unlinked account named by the claim, linked to the identity now. */
async function accountMatchingClaim(ctx: ServiceContext, identity: VerifiedIdentity): Promise<User | null> {
  const claim = ctx.config.oidc?.matchClaim;
  if (!claim) return null;
  const value = identity.claims[claim];
  if (typeof value !== 'string' || !usernameSchema.safeParse(value).success) return null;
  // An address the provider has not verified is anyone's to type.
  if (claim === 'email' && identity.claims.email_verified !== true) return null;
  const user = await ctx.em.findOne(UserSchema, { usernameKey: value.toLowerCase() }, { refresh: true });
  if (!user || (user.oidcSubject ?? null) !== null) return null;
  const linked = await ctx.em.nativeUpdate(
    UserSchema,
    { id: user.id, oidcSubject: null },
    { oidcSubject: identity.subject },
  );
  if (linked !== 1) return null;
  ctx.log.info({ userId: user.id, claim }, 'provider identity linked by its claim');
  return { ...user, oidcSubject: identity.subject };
}

/** The login page's second step, as its signed cookie names it (server/auth/oidc-flow.ts). */
export interface PendingCodeStep {
  /** Random per step: marked finished once the step has opened its session. */
  id: string;
  userId: string;
  method: 'password' | 'oidc';
}

/** A second step that has opened its session already: its cookie does not open another (ADR 0058). */
export class SignInStepFinishedError extends AppError {
  override name = 'SignInStepFinishedError';
  constructor() {
    super('BAD_REQUEST', 'This sign-in took too long or was finished already: start again.');
  }
}

/**
 * The login page's second step, after a right password or the provider (OIDC_REQUIRE_2FA=on):
 * the user's code, guessed under the login throttle as a password's code is. A wrong one is a
 * TwoFactorRequiredError. The session records how the first factor was given. Each step opens
 * one session: the step is marked finished in the database as it does (shared by every
 * instance), and a step finished already is refused before its code is looked at.
 */
export async function finishWithCode(
  ctx: ServiceContext,
  step: PendingCodeStep,
  code: unknown,
): Promise<IssuedSession> {
  if (await signInStepFinished(ctx, step.id)) throw new SignInStepFinishedError();
  const user = await ctx.em.findOne(UserSchema, { id: step.userId }, { refresh: true });
  if (!user) throw new AppError('UNAUTHORIZED', 'Start signing in again');
  const attempt = await admitLoginAttempt(ctx, user.username, ctx.clientAddress);
  const right = await checkedUnderThrottle(attempt, () => secondFactorAccepted(ctx, user, { code }));
  if (!right) throw wrongCodeError();
  // The same step finished by another request meanwhile: that one opened the session.
  if (!(await markSignInStepFinished(ctx, step.id))) throw new SignInStepFinishedError();
  return issueSession(ctx, user, step.method);
}

/**
 * The name of the user waiting for their code in the second step; null when the account is gone
 * or disabled, or the step has finished already.
 */
export async function codeStepUsername(ctx: ServiceContext, step: PendingCodeStep): Promise<string | null> {
  if (await signInStepFinished(ctx, step.id)) return null;
  const user = await ctx.em.findOne(UserSchema, { id: step.userId }, { refresh: true });
  return user && user.disabledAt === null ? user.username : null;
}
