// The activity log read (ADR 0087): by admins in the console, the API and the CLI, and by each
// user for their own sign-ins on the settings page. What is recorded: activity.ts.
import { z } from 'zod';
import type { ServiceContext } from '../context';
import { type ActivityEvent, ActivityEventSchema } from '../db/entities/activity-event.entity';
import { firstIssue } from '../schemas';
import { AppError } from '../utilities/errors';
import { requireAdmin } from './admins';
import { ACTIVITY_ACTIONS } from './activity';

/** An event as the console, the API and the CLI show it. */
export interface ActivityEntry {
  id: string;
  at: string;
  actor: { kind: string; id: string | null; name: string | null };
  address: string | null;
  userAgent: string | null;
  action: string;
  target: { kind: string; id: string | null; name: string | null } | null;
  outcome: string;
  detail: string | null;
}

function entryOf(event: ActivityEvent): ActivityEntry {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    actor: { kind: event.actorKind, id: event.actorId, name: event.actorName },
    address: event.address,
    userAgent: event.userAgent,
    action: event.action,
    target: event.targetKind ? { kind: event.targetKind, id: event.targetId, name: event.targetName } : null,
    outcome: event.outcome,
    detail: event.detail,
  };
}

/** A date, or nothing: a form's date field left empty is sent as "". */
const dateField = (name: string) =>
  z
    .string()
    .max(40)
    .refine((text) => text === '' || !Number.isNaN(Date.parse(text)), `${name} must be a date such as 2026-01-31`)
    .transform((text) => (text === '' ? undefined : new Date(text)))
    .optional();

const activityQuerySchema = z.object({
  who: z.string().trim().max(64, 'who is at most 64 characters').default(''),
  action: z
    .union([z.literal(''), z.enum(ACTIVITY_ACTIONS, { message: `action is one of ${ACTIVITY_ACTIONS.join(', ')}` })])
    .default(''),
  since: dateField('since'),
  until: dateField('until'),
  page: z.coerce
    .number({ message: 'page is a whole number from 1' })
    .int('page is a whole number from 1')
    .min(1, 'page is a whole number from 1')
    .max(1_000_000, 'page is a whole number from 1')
    .default(1),
});

const EVENTS_PER_PAGE = 50;

/** The trail for admins, newest first, 50 to a page: by who (their name), what, since and until. */
export async function listActivityEvents(ctx: ServiceContext, input: unknown) {
  await requireAdmin(ctx);
  const parsed = activityQuerySchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { who, action, since, until, page } = parsed.data;
  const where = {
    ...(who ? { actorName: who } : {}),
    ...(action ? { action } : {}),
    ...(since || until ? { at: { ...(since ? { $gte: since } : {}), ...(until ? { $lt: until } : {}) } } : {}),
  };
  const [events, total] = await ctx.em.findAndCount(ActivityEventSchema, where, {
    orderBy: { at: 'desc', id: 'desc' },
    limit: EVENTS_PER_PAGE,
    offset: (page - 1) * EVENTS_PER_PAGE,
    disableIdentityMap: true,
  });
  return {
    events: events.map(entryOf),
    total,
    page,
    pages: Math.max(1, Math.ceil(total / EVENTS_PER_PAGE)),
    query: {
      who,
      action,
      since: since?.toISOString().slice(0, 10) ?? '',
      until: until?.toISOString().slice(0, 10) ?? '',
    },
  };
}

/**
 * Every event since a date (all without one), oldest first, for an export: handed to `each` a
 * thousand at a time, so that a long trail is never held whole.
 */
export async function exportActivityEvents(
  ctx: Pick<ServiceContext, 'em'>,
  since: Date | null,
  each: (entry: ActivityEntry) => void | Promise<void>,
): Promise<void> {
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    const from: Date | null = after ? after.at : since;
    const batch: ActivityEvent[] = await ctx.em.find(
      ActivityEventSchema,
      after
        ? { $or: [{ at: { $gt: after.at } }, { at: after.at, id: { $gt: after.id } }] }
        : from
          ? { at: { $gte: from } }
          : {},
      { orderBy: { at: 'asc', id: 'asc' }, limit: 1000, disableIdentityMap: true },
    );
    for (const event of batch) await each(entryOf(event));
    if (batch.length < 1000) return;
    const last = batch[batch.length - 1];
    after = { at: last.at, id: last.id };
  }
}

/** The admin export's date, as typed: a day or a moment; null without one. */
export function readSince(text: string | undefined): Date | null {
  if (text === undefined || text === '') return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new AppError('BAD_REQUEST', `since must be a date such as 2026-01-31, got "${text}"`);
  return new Date(at);
}

/** The signed-in user's own sign-ins (and failed attempts at their name), newest first. */
export async function mySignIns(ctx: ServiceContext, limit = 20): Promise<ActivityEntry[]> {
  if (!ctx.user) throw new AppError('UNAUTHORIZED', 'Unauthorized');
  const events = await ctx.em.find(
    ActivityEventSchema,
    { actorId: ctx.user.id, action: 'sign-in' },
    { orderBy: { at: 'desc', id: 'desc' }, limit, disableIdentityMap: true },
  );
  return events.map(entryOf);
}
