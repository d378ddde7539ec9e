import { EntitySchema } from '@mikro-orm/core';

/** Who did what an activity event records (ADR 0087). */
type ActivityActorKind = 'user' | 'token' | 'guest' | 'system';

/**
 * One security-relevant event (ADR 0087): appended, never changed; removed only when older than
 * AUDIT_RETENTION_DAYS. Names are kept as they were then, so an event still reads after its
 * user or file is gone.
 */
export interface ActivityEvent {
  id: string;
  at: Date;
  actorKind: ActivityActorKind;
  /** The user who acted (by session or token); null for a guest or the system. */
  actorId: string | null;
  /** Their username then; for a failed sign-in, the name that was tried. */
  actorName: string | null;
  address: string | null;
  userAgent: string | null;
  /** What happened, e.g. `sign-in`, `account.disabled` (services/activity.ts lists them). */
  action: string;
  targetKind: string | null;
  targetId: string | null;
  targetName: string | null;
  outcome: 'success' | 'failure';
  /** A few words more (a sign-in's method, a quota's new value); never a secret. */
  detail: string | null;
}

export const ActivityEventSchema = new EntitySchema<ActivityEvent>({
  name: 'ActivityEvent',
  tableName: 'activity_events',
  indexes: [
    { name: 'activity_events_at_index', properties: ['at'] },
    { name: 'activity_events_actor_id_at_index', properties: ['actorId', 'at'] },
  ],
  properties: {
    id: { type: 'string', primary: true },
    at: { type: 'Date' },
    actorKind: { type: 'string' },
    actorId: { type: 'string', nullable: true },
    actorName: { type: 'string', nullable: true },
    address: { type: 'string', nullable: true },
    userAgent: { type: 'string', nullable: true },
    action: { type: 'string' },
    targetKind: { type: 'string', nullable: true },
    targetId: { type: 'string', nullable: true },
    targetName: { type: 'string', nullable: true },
    outcome: { type: 'string' },
    detail: { type: 'string', nullable: true },
  },
});
