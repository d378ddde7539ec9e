// Invitations and sign-up (ADR 0086). With REGISTRATION=invite or open an admin makes a link,
// `/invite/<code>`, that makes accounts: until it expires, is used up or is revoked, whoever opens
// it chooses a username and a password and gets an account with the quota and the admin right
// the invitation says. With REGISTRATION=open, `/signup` makes accounts for anyone. With `off`
// (the default) neither exists: accounts are made by admins alone.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AuthUser, ServiceContext } from '../context';
import { giveInvitationUseBack, takeInvitationUse } from '../db/invitations';
import { type Invitation, InvitationSchema } from '../db/entities/invitation.entity';
import { UserSchema } from '../db/entities/user.entity';
import { firstIssue, registerUserSchema } from '../schemas';
import { AppError } from '../utilities/errors';
import { quotaChoice } from './accounts';
import { requireAdmin } from './admins';
import { admitSignUp } from './login-throttle';
import { type IssuedSession, issueSession } from './sessions';
import { registerUser } from './users';
import { recordActivity } from './activity';

/** How long an invitation lasts unless its maker says otherwise. */
const DEFAULT_INVITATION_DAYS = 7;

const REGISTRATION_OFF = 'Invitations are turned off here (REGISTRATION=off)';
/** The accounts an invitation makes sign in with a password (ADR 0086). */
const PASSWORDS_OFF =
  'Invitations make accounts that sign in with a password, which is turned off here (PASSWORD_LOGIN=off)';

export const newInvitationSchema = z
  .object({
    expiresInDays: z.coerce
      .number({ invalid_type_error: 'expiresInDays must be a whole number from 1 to 365' })
      .int('expiresInDays must be a whole number from 1 to 365')
      .min(1, 'expiresInDays must be a whole number from 1 to 365')
      .max(365, 'expiresInDays must be a whole number from 1 to 365')
      .default(DEFAULT_INVITATION_DAYS),
    maxUses: z.coerce
      .number({ invalid_type_error: 'maxUses must be a whole number from 1 to 1000' })
      .int('maxUses must be a whole number from 1 to 1000')
      .min(1, 'maxUses must be a whole number from 1 to 1000')
      .max(1000, 'maxUses must be a whole number from 1 to 1000')
      .default(1),
    quota: z.string({ invalid_type_error: 'quota must be a string' }).max(32).default('default'),
    admin: z.boolean({ invalid_type_error: 'admin must be true or false' }).default(false),
  })
  .strict();

/** Where an invitation stands: open, or why it makes no more accounts. */
type InvitationState = 'open' | 'used up' | 'expired' | 'revoked';

/** An invitation as the console, the API and the CLI show it (never its code). */
export interface InvitationSummary {
  id: string;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  maxUses: number;
  uses: number;
  quotaSource: 'own' | 'default';
  quotaBytes: number | null;
  admin: boolean;
  state: InvitationState;
}

/** A new invitation: its summary, and its link, shown this once. */
export interface MadeInvitation {
  invitation: InvitationSummary;
  code: string;
  url: string;
}

function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

function stateOf(invitation: Invitation, now: number): InvitationState {
  if (invitation.revokedAt) return 'revoked';
  if (invitation.uses >= invitation.maxUses) return 'used up';
  if (invitation.expiresAt.getTime() <= now) return 'expired';
  return 'open';
}

function summaryOf(invitation: Invitation, now: number): InvitationSummary {
  return {
    id: invitation.id,
    createdBy: invitation.createdBy,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
    maxUses: invitation.maxUses,
    uses: invitation.uses,
    quotaSource: invitation.hasOwnQuota ? 'own' : 'default',
    quotaBytes: invitation.quotaBytes === null ? null : Number(invitation.quotaBytes),
    admin: Boolean(invitation.isAdmin),
    state: stateOf(invitation, now),
  };
}

function requireRegistration(ctx: ServiceContext): void {
  if (ctx.config.registration === 'off') throw new AppError('CONFLICT', REGISTRATION_OFF);
  if (!ctx.config.passwordLogin) throw new AppError('CONFLICT', PASSWORDS_OFF);
}

/** Whether accounts can be made on the web at all: registration on, and passwords to sign in with. */
function accountsMadeOnTheWeb(ctx: ServiceContext): boolean {
  return ctx.config.registration !== 'off' && ctx.config.passwordLogin;
}

/**
 * Makes an invitation for `createdBy` (an admin's username; null: the command line). Refused
 * while REGISTRATION is off: its link would lead nowhere.
 */
export async function makeInvitation(
  ctx: ServiceContext,
  input: unknown,
  createdBy: string | null,
): Promise<MadeInvitation> {
  requireRegistration(ctx);
  const parsed = newInvitationSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { expiresInDays, maxUses, quota, admin } = parsed.data;
  const now = ctx.clock.now();
  const code = randomBytes(18).toString('base64url');
  const invitation: Invitation = {
    id: randomUUID(),
    codeHash: hashCode(code),
    createdBy,
    createdAt: new Date(now),
    expiresAt: new Date(now + expiresInDays * 86_400_000),
    maxUses,
    uses: 0,
    ...quotaChoice(quota),
    isAdmin: admin,
    revokedAt: null,
  };
  await ctx.em.insert(InvitationSchema, invitation);
  ctx.log.info({ invitationId: invitation.id, maxUses, admin }, 'invitation made');
  await recordActivity(ctx, {
    action: 'invitation.made',
    target: { kind: 'invitation', id: invitation.id },
    detail: `${maxUses} accounts, ${expiresInDays} days${admin ? ', admins' : ''}`,
  });
  return { invitation: summaryOf(invitation, now), code, url: `${ctx.linkBase}/invite/${code}` };
}

/** An admin makes an invitation in the console or with the API. */
export async function createInvitation(ctx: ServiceContext, input: unknown): Promise<MadeInvitation> {
  const admin = await requireAdmin(ctx);
  return makeInvitation(ctx, input, admin.username);
}

/** Every invitation, newest first: the open ones and those that make no more accounts. */
export async function listInvitations(ctx: ServiceContext): Promise<InvitationSummary[]> {
  await requireAdmin(ctx);
  const now = ctx.clock.now();
  const rows = await ctx.em.find(InvitationSchema, {}, { orderBy: { createdAt: 'desc' }, disableIdentityMap: true });
  return rows.map((row) => summaryOf(row, now));
}

/** Revokes an invitation: its link makes no more accounts (410). Revoking one twice changes nothing. */
export async function revokeInvitation(ctx: ServiceContext, id: string): Promise<InvitationSummary> {
  await requireAdmin(ctx);
  const invitation = await ctx.em.findOne(InvitationSchema, { id }, { refresh: true });
  if (!invitation) throw new AppError('NOT_FOUND', 'No such invitation');
  if (!invitation.revokedAt) {
    invitation.revokedAt = new Date(ctx.clock.now());
    await ctx.em.flush();
    ctx.log.info({ invitationId: id }, 'invitation revoked');
    await recordActivity(ctx, { action: 'invitation.revoked', target: { kind: 'invitation', id } });
  }
  return summaryOf(invitation, ctx.clock.now());
}

/** The words for an invitation that makes no more accounts, said with 410. */
const GONE_MESSAGES: Record<Exclude<InvitationState, 'open'>, string> = {
  'used up': 'This invitation has been used up: ask for a new one.',
  expired: 'This invitation has expired: ask for a new one.',
  revoked: 'This invitation was revoked.',
};

/**
 * The invitation behind a link, when it still makes accounts. NOT_FOUND for a code that names
 * none (or while REGISTRATION is off); GONE, saying why, for one used up, expired or revoked.
 */
export async function openInvitation(ctx: ServiceContext, code: string): Promise<InvitationSummary> {
  if (!accountsMadeOnTheWeb(ctx) || code.length > 64) throw new AppError('NOT_FOUND', 'Not found');
  const invitation = await ctx.em.findOne(InvitationSchema, { codeHash: hashCode(code) }, { disableIdentityMap: true });
  if (!invitation) throw new AppError('NOT_FOUND', 'Not found');
  const summary = summaryOf(invitation, ctx.clock.now());
  if (summary.state !== 'open') throw new AppError('GONE', GONE_MESSAGES[summary.state]);
  return summary;
}

/**
 * Makes the account an invitation offers, and signs its new owner in. The username and password
 * are checked before a use is taken; a use is taken in one statement, so two people on the last
 * use cannot both have it; and it is given back when the account cannot be made after all.
 */
export async function acceptInvitation(ctx: ServiceContext, code: string, input: unknown): Promise<IssuedSession> {
  const offered = await openInvitation(ctx, code);
  const fields = await checkedNewAccount(ctx, input);
  if (!(await takeInvitationUse(ctx.em, offered.id))) {
    // Taken, revoked or expired since it was opened: said as it now is.
    await openInvitation(ctx, code);
    throw new AppError('GONE', GONE_MESSAGES['used up']);
  }
  let user: AuthUser;
  try {
    user = await registerUser(ctx, fields, {
      admin: offered.admin,
      quota: { hasOwnQuota: offered.quotaSource === 'own', quotaBytes: offered.quotaBytes },
    });
  } catch (error) {
    await giveInvitationUseBack(ctx.em, offered.id);
    throw error;
  }
  ctx.log.info({ userId: user.id, invitationId: offered.id }, 'account made with an invitation');
  await recordActivity(ctx, {
    action: 'invitation.used',
    actor: { id: user.id, name: user.username },
    target: { kind: 'invitation', id: offered.id },
  });
  return issueSession(ctx, { ...user, disabledAt: null }, 'password');
}

/** With REGISTRATION=open: anyone makes an account on /signup, at the login throttle's pace. */
export async function signUp(ctx: ServiceContext, input: unknown): Promise<IssuedSession> {
  if (ctx.config.registration !== 'open' || !ctx.config.passwordLogin) throw new AppError('NOT_FOUND', 'Not found');
  await admitSignUp(ctx);
  const fields = await checkedNewAccount(ctx, input);
  const user = await registerUser(ctx, fields);
  ctx.log.info({ userId: user.id }, 'account made on the sign-up page');
  return issueSession(ctx, { ...user, disabledAt: null }, 'password');
}

/** A new account's username and password, checked as registration checks them, and the name free. */
async function checkedNewAccount(ctx: ServiceContext, input: unknown) {
  const parsed = registerUserSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  if (await ctx.em.count(UserSchema, { usernameKey: parsed.data.username.toLowerCase() }))
    throw new AppError('CONFLICT', 'Username is already taken');
  return parsed.data;
}
