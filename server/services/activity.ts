// The activity log (ADR 0087): every security-relevant event appended to `activity_events` with its
// time, who acted (a user by session or token, a guest, or the system: the command line, the
// housekeeping), from where, on what, and how it ended. Writing an event never fails what it
// records: a failure to write is logged, with the event, instead. Admins read the trail in the
// console, the API and the CLI; each user sees their own sign-ins on the settings page.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context';
import { type ActivityEvent, ActivityEventSchema } from '../db/entities/activity-event.entity';

/** What the trail records. */
export const ACTIVITY_ACTIONS = [
  'sign-in',
  'sign-out',
  'password.changed',
  'two-factor.on',
  'two-factor.off',
  'token.created',
  'token.revoked',
  'sessions.ended',
  'account.created',
  'account.disabled',
  'account.enabled',
  'account.quota',
  'account.admin',
  'account.deleted',
  'invitation.made',
  'invitation.used',
  'invitation.revoked',
  'share-settings.changed',
  'file.deleted',
  'collection.deleted',
  'file-request.made',
  'file-request.closed',
] as const;
type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

interface ActivityTarget {
  kind: 'user' | 'file' | 'collection' | 'file-request' | 'token' | 'invitation' | 'session';
  id: string | null;
  name?: string | null;
}

export interface ActivityRecord {
  action: ActivityAction;
  target?: ActivityTarget;
  outcome?: 'success' | 'failure';
  detail?: string | null;
  /** Who acted, when it is not the request's user: a sign-in's user (or the name tried). */
  actor?: { id: string | null; name: string | null };
}

/**
 * Text as a column keeps it: control characters (a NUL, which PostgreSQL refuses, among them)
 * shown as U+FFFD, and cut to what varchar(255) holds. A name tried at sign-in may be anything.
 */
const cut = (text: string | null | undefined): string | null =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is replaced.
  text == null ? null : text.replace(/[\u0000-\u001f\u007f]/g, '\ufffd').slice(0, 255);

/**
 * Appends one event. Never throws: the action it records has happened (or been refused)
 * already, and a trail that cannot be written must not undo it; the failure is logged with the
 * event, so nothing is lost silently.
 */
export async function recordActivity(
  ctx: Pick<ServiceContext, 'em' | 'clock' | 'log' | 'user' | 'authMethod' | 'clientAddress' | 'userAgent'>,
  record: ActivityRecord,
): Promise<void> {
  const actor = record.actor ?? (ctx.user ? { id: ctx.user.id, name: ctx.user.username } : null);
  const event: ActivityEvent = {
    id: randomUUID(),
    at: new Date(ctx.clock.now()),
    actorKind: actor?.id
      ? ctx.authMethod === 'token' && !record.actor
        ? 'token'
        : 'user'
      : ctx.clientAddress === null
        ? 'system'
        : 'guest',
    actorId: actor?.id ?? null,
    actorName: cut(actor?.name),
    address: cut(ctx.clientAddress),
    userAgent: cut(ctx.userAgent),
    action: record.action,
    targetKind: record.target?.kind ?? null,
    targetId: cut(record.target?.id),
    targetName: cut(record.target?.name),
    outcome: record.outcome ?? 'success',
    detail: cut(record.detail),
  };
  try {
    await ctx.em.insert(ActivityEventSchema, event);
  } catch (error) {
    const { id: _id, ...what } = event;
    ctx.log.error({ err: error, activity: what }, 'activity event not written');
  }
}

/** Removes the events older than AUDIT_RETENTION_DAYS; how many went. */
export function pruneActivityEvents(
  deps: Pick<ServiceContext, 'em' | 'clock'>,
  retentionDays: number,
): Promise<number> {
  return deps.em.nativeDelete(ActivityEventSchema, {
    at: { $lt: new Date(deps.clock.now() - retentionDays * 86_400_000) },
  });
}
