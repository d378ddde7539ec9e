// Personal access tokens: managed with a session only (the services refuse a token). Their
// routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { newApiTokenSchema } from '../../schemas';
import { createApiToken, listApiTokens, revokeApiToken } from '../../services/api-tokens';
import { errors, idParam, isoDate, json, Ok, SESSION_ONLY } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

export function tokenRoutes(router: Router): void {
  router.get(
    '/tokens',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ tokens: await listApiTokens(res.locals.ctx) });
    }),
  );

  router.post(
    '/tokens',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json(await createApiToken(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/tokens/:id',
    requireSession,
    handler(async (req, res) => {
      await revokeApiToken(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );
}

const ApiToken = z
  .object({
    id: z.string(),
    name: z.string(),
    start: z
      .string()
      .openapi({ description: 'The first characters of the token, to tell tokens apart.', example: 'fsk_Ab3dE9' }),
    createdAt: isoDate,
    lastUsedAt: isoDate.nullable(),
    expiresAt: isoDate.nullable(),
  })
  .strict()
  .openapi('ApiToken');

export function tokenPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/tokens',
    tags: ['API tokens'],
    summary: 'List your API tokens (never the tokens themselves)',
    security: SESSION_ONLY,
    responses: {
      200: { description: 'Your tokens, newest first', content: json(z.object({ tokens: z.array(ApiToken) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/tokens',
    tags: ['API tokens'],
    summary: 'Create an API token: the response is the only time it is shown',
    security: SESSION_ONLY,
    request: { body: { content: json(newApiTokenSchema) } },
    responses: {
      201: {
        description: 'Created',
        content: json(z.object({ token: z.string().regex(/^fsk_/), apiToken: ApiToken })),
      },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/tokens/{id}',
    tags: ['API tokens'],
    summary: 'Revoke an API token: it stops working at once',
    security: SESSION_ONLY,
    request: { params: idParam('token') },
    responses: { 200: { description: 'Revoked', content: json(Ok) }, ...errors(401, 403, 404) },
  });
}
