// The activity log on the admin API (ADR 0087): a page of it with filters, and every event since
// a date as JSON lines. Behind the admin API's 404 for anyone but an admin (admin.ts); routes
// and their OpenAPI side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { requireAdmin } from '../../services/admins';
import { ACTIVITY_ACTIONS } from '../../services/activity';
import { exportActivityEvents, listActivityEvents, readSince } from '../../services/activity-log';
import { errors, isoDate, json, SESSION_OR_TOKEN } from './openapi-parts';
import { handler } from './routing';

export function adminActivityRoutes(router: Router): void {
  router.get(
    '/admin/audit',
    handler(async (req, res) => {
      res.status(200).json(await listActivityEvents(res.locals.ctx, req.query));
    }),
  );

  router.get(
    '/admin/audit/export',
    handler(async (req, res) => {
      const { ctx } = res.locals;
      await requireAdmin(ctx);
      const since = readSince(typeof req.query.since === 'string' ? req.query.since : undefined);
      res.status(200).type('application/x-ndjson').setHeader('Cache-Control', 'no-store');
      await exportActivityEvents(ctx, since, (entry) => {
        res.write(`${JSON.stringify(entry)}\n`);
      });
      res.end();
    }),
  );
}

const ActivityEntry = z
  .object({
    id: z.string(),
    at: isoDate,
    actor: z.object({
      kind: z.enum(['user', 'token', 'guest', 'system']),
      id: z.string().nullable(),
      name: z.string().nullable().openapi({ description: 'The username then; for a failed sign-in, the name tried.' }),
    }),
    address: z.string().nullable(),
    userAgent: z.string().nullable(),
    action: z.string().openapi({ description: `One of ${ACTIVITY_ACTIONS.join(', ')}.` }),
    target: z.object({ kind: z.string(), id: z.string().nullable(), name: z.string().nullable() }).nullable(),
    outcome: z.enum(['success', 'failure']),
    detail: z.string().nullable(),
  })
  .openapi('ActivityEntry');

const ADMIN = ['Admin'];

export function adminActivityPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/admin/audit',
    tags: ADMIN,
    summary: 'The activity log, newest first, 50 to a page (admins only)',
    security: SESSION_OR_TOKEN,
    request: {
      query: z.object({
        who: z.string().optional().openapi({ description: 'A username: what they did (or tried, for sign-ins).' }),
        action: z
          .string()
          .optional()
          .openapi({ description: `One of ${ACTIVITY_ACTIONS.join(', ')}.` }),
        since: z.string().optional().openapi({ description: 'A date such as 2026-01-31 (from its start).' }),
        until: z.string().optional().openapi({ description: 'A date: events before it.' }),
        page: z.string().optional(),
      }),
    },
    responses: {
      200: {
        description: 'A page of events',
        content: json(
          z.object({
            events: z.array(ActivityEntry),
            total: z.number().int().nonnegative(),
            page: z.number().int().min(1),
            pages: z.number().int().min(1),
            query: z.object({ who: z.string(), action: z.string(), since: z.string(), until: z.string() }),
          }),
        ),
      },
      ...errors(400, 404),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/audit/export',
    tags: ADMIN,
    summary: 'Every event since a date, oldest first, one JSON object a line (admins only)',
    security: SESSION_OR_TOKEN,
    request: { query: z.object({ since: z.string().optional() }) },
    responses: {
      200: {
        description: 'JSON lines, each an ActivityEntry',
        content: { 'application/x-ndjson': { schema: z.string() } },
      },
      ...errors(400, 404),
    },
  });
}
