// Webhooks (ADR 0050): the caller's endpoints and their deliveries; another's id is a 404. Their
// routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  newWebhookSchema,
  resendWebhookDelivery,
  WEBHOOK_EVENTS,
} from '../../services/webhooks';
import { errors, idParam, isoDate, json, Ok } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

export function webhookRoutes(router: Router): void {
  router.get(
    '/webhooks',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ webhooks: await listWebhooks(res.locals.ctx) });
    }),
  );

  router.post(
    '/webhooks',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json(await createWebhook(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/webhooks/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteWebhook(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );

  router.get(
    '/webhooks/:id/deliveries',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ deliveries: await listWebhookDeliveries(res.locals.ctx, req.params.id) });
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:deliveryId/resend',
    requireSession,
    handler(async (req, res) => {
      const delivery = await resendWebhookDelivery(res.locals.ctx, req.params.id, req.params.deliveryId);
      res.status(202).json({ delivery });
    }),
  );
}

const Webhook = z
  .object({
    id: z.string().openapi({ example: 'wh_3q2-7wXbYk1mPz0a' }),
    url: z.string().openapi({ example: 'https://example.com/hooks/files' }),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    createdAt: isoDate,
  })
  .strict()
  .openapi('Webhook');

const WebhookDelivery = z
  .object({
    id: z.string().openapi({ description: 'Sent as X-Webhook-Id and in the body: the same on every retry.' }),
    type: z.string().openapi({ example: 'file.uploaded' }),
    status: z.enum(['pending', 'delivered', 'failed']).openapi({
      description:
        'pending: waiting for its next attempt; delivered: a 2xx came back; failed: retried for a day without one.',
    }),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: isoDate,
    nextAttemptAt: isoDate.nullable().openapi({ description: 'When it is tried next; null unless pending.' }),
    deliveredAt: isoDate.nullable(),
  })
  .strict()
  .openapi('WebhookDelivery');

/** Webhooks (ADR 0050): endpoints that get signed JSON events of the caller's files. */
export function webhookPaths(registry: OpenAPIRegistry): void {
  const params = z.object({
    id: z.string().openapi({ description: "The webhook's id" }),
    deliveryId: z.string().openapi({ description: "The delivery's id" }),
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'List your webhooks (never their secrets)',
    responses: {
      200: { description: 'Your webhooks, oldest first', content: json(z.object({ webhooks: z.array(Webhook) })) },
      ...errors(401),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks',
    tags: ['Webhooks'],
    summary: 'Add a webhook: the response is the only time its signing secret is shown',
    request: { body: { content: json(newWebhookSchema) } },
    responses: {
      201: {
        description: 'Added',
        content: json(z.object({ webhook: Webhook, secret: z.string().regex(/^whsec_/) })),
      },
      ...errors(400, 401),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/webhooks/{id}',
    tags: ['Webhooks'],
    summary: 'Remove a webhook and its deliveries',
    request: { params: idParam('webhook') },
    responses: { 200: { description: 'Removed', content: json(Ok) }, ...errors(401, 404) },
  });
  registry.registerPath({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    tags: ['Webhooks'],
    summary: "A webhook's recent deliveries, newest first (up to 50)",
    request: { params: idParam('webhook') },
    responses: {
      200: { description: 'Its deliveries', content: json(z.object({ deliveries: z.array(WebhookDelivery) })) },
      ...errors(401, 404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{deliveryId}/resend',
    tags: ['Webhooks'],
    summary: 'Send a delivery again, with the same id: it is pending from now',
    request: { params },
    responses: {
      202: { description: 'Queued again', content: json(z.object({ delivery: WebhookDelivery })) },
      ...errors(401, 404),
    },
  });
}
