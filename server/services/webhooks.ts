// Webhooks (ADR 0050): a user's endpoints, the events each takes, and their deliveries. The
// outbox rows of file events are written by the database's triggers in the transaction of the
// change (the migration Migration20261203000000Webhooks); server/webhooks/deliverer.ts sends
// them. Every function here acts on the caller's own endpoints: another's id is a 404.
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '../db/orm';
import { z } from 'zod';
import type { ServiceContext } from '../context';
import { WebhookDeliverySchema, type WebhookDelivery } from '../db/entities/webhook-delivery.entity';
import { WebhookEndpointSchema, type WebhookEndpoint } from '../db/entities/webhook-endpoint.entity';
import { AppError } from '../utilities/errors';
import { firstIssue, isRecordId } from '../schemas';
import { checkEndpointAddress, RefusedAddressError } from '../webhooks/address-guard';
import { newWebhookSecret, sealSecret } from '../webhooks/secrets';
import { requireUser } from './guards';

export const WEBHOOK_EVENTS = [
  'file.uploaded',
  'file.deleted',
  'file.downloaded',
  'file.expired',
  'request.received',
] as const;
type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Endpoints one user may have. */
const MAX_ENDPOINTS = 20;
/** Deliveries an endpoint's list shows, newest first. */
const RECENT_DELIVERIES = 50;

export const newWebhookSchema = z.object({
  url: z
    .string({ required_error: 'url is required', invalid_type_error: 'url must be a string' })
    .max(2000, 'url must be at most 2000 characters')
    .refine((text) => /^https?:\/\/[^/]/i.test(text) && URL.canParse(text), 'url must be an http(s) URL')
    .openapi({ example: 'https://example.com/hooks/files' }),
  events: z
    .array(
      z.enum(WEBHOOK_EVENTS, {
        errorMap: () => ({ message: `events must be some of ${WEBHOOK_EVENTS.join(', ')}` }),
      }),
      { required_error: 'events is required', invalid_type_error: 'events must be a list' },
    )
    .min(1, 'events must name at least one event')
    .openapi({ example: ['file.uploaded', 'file.downloaded'] }),
});

export interface WebhookDto {
  id: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

export interface WebhookDeliveryDto {
  id: string;
  type: string;
  /** pending (waiting for its next attempt), delivered, or failed (retried for a day without a 2xx). */
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  /** When it is tried next; null unless pending. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

const iso = (value: Date | number | string | null) => (value === null ? null : new Date(value).toISOString());

function toDto(row: WebhookEndpoint): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    events: row.events.split(',').filter(Boolean) as WebhookEvent[],
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

function toDeliveryDto(row: WebhookDelivery): WebhookDeliveryDto {
  const status = row.status as WebhookDeliveryDto['status'];
  return {
    id: row.id,
    type: row.type,
    status,
    attempts: Number(row.attempts),
    lastStatusCode: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
    lastError: row.lastError,
    createdAt: new Date(row.createdAt).toISOString(),
    nextAttemptAt: status === 'pending' ? iso(row.nextAttemptAt) : null,
    deliveredAt: iso(row.deliveredAt),
  };
}

/** Adds an endpoint for the caller; its signing secret is in the answer this once. */
export async function createWebhook(
  ctx: ServiceContext,
  input: unknown,
): Promise<{ webhook: WebhookDto; secret: string }> {
  const owner = requireUser(ctx);
  const parsed = newWebhookSchema.safeParse(input ?? {});
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const url = new URL(parsed.data.url);
  if (url.username || url.password) throw new AppError('BAD_REQUEST', 'url must not carry a user name or password');
  if (!ctx.config.webhooks.allowPrivate) {
    try {
      await checkEndpointAddress(url);
    } catch (error) {
      if (error instanceof RefusedAddressError) throw new AppError('BAD_REQUEST', error.message);
      throw error;
    }
  }
  const count = await ctx.em.count(WebhookEndpointSchema, { userId: owner.id });
  if (count >= MAX_ENDPOINTS) throw new AppError('BAD_REQUEST', `You can have at most ${MAX_ENDPOINTS} webhooks`);
  const secret = newWebhookSecret();
  const events = WEBHOOK_EVENTS.filter((event) => parsed.data.events.includes(event));
  const row: WebhookEndpoint = {
    id: `wh_${randomBytes(12).toString('base64url')}`,
    userId: owner.id,
    url: url.href,
    // Between commas, so that the triggers match a type with LIKE '%,type,%'.
    events: `,${events.join(',')},`,
    secret: sealSecret(secret, ctx.config.sessionSecret),
    createdAt: new Date(ctx.clock.now()),
  };
  await ctx.em.insert(WebhookEndpointSchema, row);
  ctx.log.info({ webhookId: row.id }, 'webhook added');
  return { webhook: toDto(row), secret };
}

export async function listWebhooks(ctx: ServiceContext): Promise<WebhookDto[]> {
  const owner = requireUser(ctx);
  const rows = await ctx.em.find(
    WebhookEndpointSchema,
    { userId: owner.id },
    { orderBy: { createdAt: 'asc', id: 'asc' }, disableIdentityMap: true },
  );
  return rows.map(toDto);
}

async function requireOwnWebhook(ctx: ServiceContext, id: string): Promise<WebhookEndpoint> {
  const owner = requireUser(ctx);
  const row = isRecordId(id)
    ? await ctx.em.findOne(WebhookEndpointSchema, { id, userId: owner.id }, { disableIdentityMap: true })
    : null;
  if (!row) throw new AppError('NOT_FOUND', 'Webhook not found');
  return row;
}

/** Removes one of the caller's endpoints, and its deliveries with it. */
export async function deleteWebhook(ctx: ServiceContext, id: string): Promise<void> {
  const owner = requireUser(ctx);
  const removed = isRecordId(id) ? await ctx.em.nativeDelete(WebhookEndpointSchema, { id, userId: owner.id }) : 0;
  if (removed === 0) throw new AppError('NOT_FOUND', 'Webhook not found');
  ctx.log.info({ webhookId: id }, 'webhook removed');
}

/** The endpoint's recent deliveries, newest first. */
export async function listWebhookDeliveries(ctx: ServiceContext, id: string): Promise<WebhookDeliveryDto[]> {
  const endpoint = await requireOwnWebhook(ctx, id);
  const rows = await ctx.em.find(
    WebhookDeliverySchema,
    { endpointId: endpoint.id },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: RECENT_DELIVERIES, disableIdentityMap: true },
  );
  return rows.map(toDeliveryDto);
}

/**
 * Sends a delivery again, with the same id (a receiver that has it already drops it): it is
 * pending from now, and retried as a new one is. One being sent right now is left to finish.
 */
export async function resendWebhookDelivery(
  ctx: ServiceContext,
  id: string,
  deliveryId: string,
): Promise<WebhookDeliveryDto> {
  const endpoint = await requireOwnWebhook(ctx, id);
  if (!isRecordId(deliveryId)) throw new AppError('NOT_FOUND', 'Delivery not found');
  const now = new Date(ctx.clock.now());
  await ctx.em.nativeUpdate(
    WebhookDeliverySchema,
    { id: deliveryId, endpointId: endpoint.id, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
    { status: 'pending', nextAttemptAt: now, leaseUntil: null, leaseToken: null },
  );
  const row = await ctx.em.findOne(
    WebhookDeliverySchema,
    { id: deliveryId, endpointId: endpoint.id },
    { disableIdentityMap: true },
  );
  if (!row) throw new AppError('NOT_FOUND', 'Delivery not found');
  ctx.log.info({ webhookId: endpoint.id, deliveryId: row.id }, 'webhook delivery sent again');
  return toDeliveryDto(row);
}

/** A new delivery id: 32 hex digits, as the triggers make them. */
function newDeliveryId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Queues `type` with `data` for each of the user's endpoints that takes it, on `em`: inside the
 * caller's transaction when `em` is a transaction's (em.transactional), so that the event is
 * committed with the change it tells of, or not at all. `eventKey` makes it once per endpoint.
 */
async function queueEvent(
  em: EntityManager,
  userId: string,
  type: WebhookEvent,
  data: Record<string, unknown>,
  eventKey: string | null = null,
): Promise<number> {
  const endpoints = await em.find(
    WebhookEndpointSchema,
    { userId, events: { $like: `%,${type},%` } },
    { fields: ['id'], disableIdentityMap: true },
  );
  if (endpoints.length === 0) return 0;
  const now = new Date();
  const rows = endpoints.map((endpoint) => ({
    id: newDeliveryId(),
    endpointId: endpoint.id,
    type,
    data: JSON.stringify(data),
    eventKey,
    createdAt: now,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    leaseToken: null,
    lastStatusCode: null,
    lastError: null,
    deliveredAt: null,
  }));
  if (eventKey === null) {
    await em.insertMany(WebhookDeliverySchema, rows);
    return rows.length;
  }
  let queued = 0;
  for (const row of rows) {
    const exists = await em.count(WebhookDeliverySchema, { endpointId: row.endpointId, eventKey });
    if (exists) continue;
    await em.insert(WebhookDeliverySchema, row).catch(() => undefined); // queued meanwhile by another
    queued++;
  }
  return queued;
}

/**
 * Files whose expiry a request has already told of, in this process: one write per file, not one
 * per request. Shared by the apps of one process (tests, the bench): ids are random, and the
 * event key lets each file's expiry be queued once in all whichever app finds it.
 */
const toldExpired = new Set<string>();

/**
 * Tells the owner's endpoints that a file's link has expired or used up its downloads, when a
 * request finds it so (before the sweep removes it, which tells of it too: once in all, per
 * endpoint). Never fails the request that found it.
 */
export function noteExpiredLink(
  ctx: ServiceContext,
  file: { id: string; userId: string; originalName: string; size: number; mimeType: string },
): void {
  if (toldExpired.has(file.id)) return;
  if (toldExpired.size > 10_000) toldExpired.clear();
  toldExpired.add(file.id);
  const data = { fileId: file.id, name: file.originalName, size: Number(file.size), mimeType: file.mimeType };
  queueEvent(ctx.em, file.userId, 'file.expired', data, `file.expired:${file.id}`).catch((error: unknown) => {
    toldExpired.delete(file.id);
    ctx.log.warn({ err: error, fileId: file.id }, 'expiry of a link not queued for its webhooks');
  });
}
