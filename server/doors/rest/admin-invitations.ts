// Invitations on the admin API, /api/v1/admin/invitations (ADR 0086): list, make, revoke. Behind
// the admin API's 404 for anyone but an admin (admin.ts); routes and their OpenAPI side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { createInvitation, listInvitations, newInvitationSchema, revokeInvitation } from '../../services/invitations';
import { errors, isoDate, json, SESSION_OR_TOKEN } from './openapi-parts';
import { handler, jsonObjectBody } from './routing';

export function adminInvitationRoutes(router: Router): void {
  router.get(
    '/admin/invitations',
    handler(async (_req, res) => {
      res.status(200).json({ invitations: await listInvitations(res.locals.ctx) });
    }),
  );

  router.post(
    '/admin/invitations',
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json(await createInvitation(res.locals.ctx, req.body));
    }),
  );

  router.delete(
    '/admin/invitations/:id',
    handler(async (req, res) => {
      res.status(200).json({ invitation: await revokeInvitation(res.locals.ctx, req.params.id) });
    }),
  );
}

const Invitation = z
  .object({
    id: z.string(),
    createdBy: z.string().nullable().openapi({ description: 'The admin who made it; null: the command line.' }),
    createdAt: isoDate,
    expiresAt: isoDate,
    maxUses: z.number().int().min(1),
    uses: z.number().int().nonnegative(),
    quotaSource: z
      .enum(['own', 'default'])
      .openapi({ description: 'The accounts get a quota of their own, or DEFAULT_QUOTA_BYTES.' }),
    quotaBytes: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .openapi({ description: 'With quotaSource own: null is unlimited.' }),
    admin: z.boolean().openapi({ description: 'Whether the accounts it makes are admins.' }),
    state: z.enum(['open', 'used up', 'expired', 'revoked']),
  })
  .strict()
  .openapi('Invitation');

const ADMIN = ['Admin'];

export function adminInvitationPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/admin/invitations',
    tags: ADMIN,
    summary: 'Every invitation, newest first, with where it stands (admins only)',
    security: SESSION_OR_TOKEN,
    responses: {
      200: { description: 'The invitations', content: json(z.object({ invitations: z.array(Invitation) })) },
      ...errors(404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/invitations',
    tags: ADMIN,
    summary: 'Make an invitation link; needs REGISTRATION=invite or open (admins only)',
    security: SESSION_OR_TOKEN,
    request: {
      body: {
        content: json(
          newInvitationSchema.openapi({
            description:
              'expiresInDays 1-365 (default 7), maxUses 1-1000 (default 1), quota a size such as 5GB, "none" or "default" (the default), admin (default false).',
          }),
        ),
      },
    },
    responses: {
      201: {
        description: 'Made: its link, shown this once (only a hash of its code is kept)',
        content: json(z.object({ invitation: Invitation, code: z.string(), url: z.string().url() })),
      },
      ...errors(400, 404, 409),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/admin/invitations/{id}',
    tags: ADMIN,
    summary: 'Revoke an invitation: its link makes no more accounts (admins only)',
    security: SESSION_OR_TOKEN,
    request: { params: z.object({ id: z.string() }) },
    responses: {
      200: { description: 'Revoked', content: json(z.object({ invitation: Invitation })) },
      ...errors(404),
    },
  });
}
