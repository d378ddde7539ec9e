import { EntitySchema } from '@mikro-orm/core';

/**
 * One event to send to one endpoint: the outbox (ADR 0050). Rows are written in the same
 * transaction as the change they tell of (by the database's triggers on `files`), and sent by the
 * deliverer of any instance that claims them: `lease_until` and `lease_token` say who holds one.
 */
export interface WebhookDelivery {
  /** The delivery's id, sent as X-Webhook-Id and in the body: the same on every retry. */
  id: string;
  endpointId: string;
  type: string;
  /** The event's data as JSON text (the share URL is added when sent). */
  data: string;
  /** Set for events that happen once per file and endpoint (file.expired): a second one is not queued. */
  eventKey: string | null;
  createdAt: Date;
  /** pending, delivered or failed. */
  status: string;
  attempts: number;
  nextAttemptAt: Date;
  /** Until when the instance that claimed it may send it; after that another may. */
  leaseUntil: Date | null;
  leaseToken: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
}

export const WebhookDeliverySchema = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [
    // The deliverer reads each endpoint's oldest due delivery (ADR 0057).
    {
      name: 'webhook_deliveries_endpoint_id_status_next_attempt_at_index',
      properties: ['endpointId', 'status', 'nextAttemptAt'],
    },
    // An endpoint's recent deliveries, newest first.
    { name: 'webhook_deliveries_endpoint_id_created_at_index', properties: ['endpointId', 'createdAt'] },
  ],
  uniques: [{ name: 'webhook_deliveries_endpoint_id_event_key_unique', properties: ['endpointId', 'eventKey'] }],
  properties: {
    id: { type: 'string', primary: true },
    endpointId: {
      kind: 'm:1',
      entity: 'WebhookEndpoint',
      fieldName: 'endpoint_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: false,
    },
    type: { type: 'string' },
    data: { type: 'text' },
    eventKey: { type: 'string', nullable: true },
    createdAt: { type: 'Date' },
    status: { type: 'string' },
    attempts: { type: 'integer', default: 0 },
    nextAttemptAt: { type: 'Date' },
    leaseUntil: { type: 'Date', nullable: true },
    leaseToken: { type: 'string', nullable: true },
    lastStatusCode: { type: 'integer', nullable: true },
    lastError: { type: 'text', nullable: true },
    deliveredAt: { type: 'Date', nullable: true },
  },
});
