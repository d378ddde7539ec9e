import { EntitySchema } from '@mikro-orm/core';

/**
 * An address a user has events of their files sent to (ADR 0050). `events` lists the event types
 * between commas (",file.uploaded,file.deleted,"), so that the database's own triggers can match
 * a type with LIKE. The secret that signs deliveries is kept encrypted (webhooks/secrets.ts).
 */
export interface WebhookEndpoint {
  id: string;
  userId: string;
  url: string;
  events: string;
  /** The signing secret, encrypted with a key derived from SESSION_SECRET. */
  secret: string;
  createdAt: Date;
}

export const WebhookEndpointSchema = new EntitySchema<WebhookEndpoint>({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'webhook_endpoints_user_id_index',
    },
    url: { type: 'text' },
    events: { type: 'text' },
    secret: { type: 'text' },
    createdAt: { type: 'Date' },
  },
});
