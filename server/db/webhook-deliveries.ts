// What the webhook deliverer (webhooks/deliverer.ts, ADR 0050, ADR 0057) runs on the
// `webhook_deliveries` table, written out (direct-sql.ts): the due deliveries read, one claimed
// with a conditional UPDATE that only one instance's can win (a lease and a token of its own),
// and its outcome written only while that lease is still held.
import type { DirectSql } from './direct-sql';

/** A due delivery, with its endpoint's address and sealed secret. */
export interface DueDelivery {
  id: string;
  endpointId: string;
  type: string;
  data: string;
  createdAt: Date | number | string;
  attempts: number | string;
  url: string;
  secret: string;
}

/**
 * The oldest due delivery of each endpoint that has one, oldest first: an endpoint with a backlog
 * comes once, not ahead of everyone's. Each probe is one range of the index on
 * (endpoint_id, status, next_attempt_at).
 */
function dueStatement(limit: number): string {
  return (
    'select "d"."id" as "id", "d"."endpoint_id" as "endpointId", "d"."type" as "type", "d"."data" as "data", ' +
    '"d"."created_at" as "createdAt", "d"."attempts" as "attempts", "e"."url" as "url", "e"."secret" as "secret" ' +
    'from "webhook_endpoints" "e" join "webhook_deliveries" "d" on "d"."id" = (' +
    'select "x"."id" from "webhook_deliveries" "x" where "x"."endpoint_id" = "e"."id" and "x"."status" = \'pending\' ' +
    'and "x"."next_attempt_at" <= ? and ("x"."lease_until" is null or "x"."lease_until" <= ?) ' +
    'order by "x"."next_attempt_at" limit 1) ' +
    `order by "d"."next_attempt_at" limit ${limit}`
  );
}

/** The statement for each limit asked for, written once (the deliverer asks for one). */
const DUE = new Map<number, string>();

/** Up to `limit` deliveries due at `now`, unclaimed or with their lease over: one per endpoint, oldest first. */
export function selectDueDeliveries(sql: DirectSql, now: Date, limit: number): Promise<DueDelivery[]> {
  let statement = DUE.get(limit);
  if (statement === undefined) {
    statement = dueStatement(limit);
    DUE.set(limit, statement);
  }
  return sql.select<DueDelivery>(statement, [now, now]);
}

const CLAIM =
  'update "webhook_deliveries" set "lease_until" = ?, "lease_token" = ? where "id" = ? and "status" = \'pending\' ' +
  'and "next_attempt_at" <= ? and ("lease_until" is null or "lease_until" <= ?)';

/**
 * Claims a delivery still due at `at` and not leased (or its lease over) until `leaseUntil`,
 * under `token`: true when this claim won it.
 */
export async function claimDelivery(
  sql: DirectSql,
  deliveryId: string,
  token: string,
  at: Date,
  leaseUntil: Date,
): Promise<boolean> {
  return (await sql.change(CLAIM, [leaseUntil, token, deliveryId, at, at])) === 1;
}

const DELIVERED =
  'update "webhook_deliveries" set "status" = \'delivered\', "attempts" = "attempts" + 1, "delivered_at" = ?, ' +
  '"last_status_code" = ?, "last_error" = null, "lease_until" = null, "lease_token" = null where "id" = ? and "lease_token" = ?';

/** Marks a claimed delivery delivered, while the claim under `token` still holds it. */
export async function markDelivered(
  sql: DirectSql,
  deliveryId: string,
  token: string,
  at: Date,
  status: number,
): Promise<void> {
  await sql.change(DELIVERED, [at, status, deliveryId, token]);
}

const NOT_DELIVERED =
  'update "webhook_deliveries" set "status" = ?, "attempts" = "attempts" + 1, "next_attempt_at" = ?, ' +
  '"last_status_code" = ?, "last_error" = ?, "lease_until" = null, "lease_token" = null where "id" = ? and "lease_token" = ?';

/**
 * Records a failed attempt of a claimed delivery, while the claim under `token` still holds it:
 * tried again at `nextAttemptAt` ('pending'), or given up ('failed').
 */
export async function markNotDelivered(
  sql: DirectSql,
  deliveryId: string,
  token: string,
  outcome: { status: 'pending' | 'failed'; nextAttemptAt: Date; statusCode: number | null; error: string },
): Promise<void> {
  await sql.change(NOT_DELIVERED, [
    outcome.status,
    outcome.nextAttemptAt,
    outcome.statusCode,
    outcome.error,
    deliveryId,
    token,
  ]);
}
