// The admin console's API, /api/v1/admin (ADR 0083): for scripts, with an admin's session or
// API token. To anyone else every route is a 404, as if it did not exist (the services say so).
// Routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { ACCOUNT_SORTS } from '../../db/accounts-page';
import {
  createAccount,
  deleteAccount,
  describeAccount,
  listAccounts,
  resetAccountTwoFactor,
  setAccountAdmin,
  setAccountDisabled,
  setAccountQuota,
  signAccountOutEverywhere,
} from '../../services/admin-accounts';
import { settingsInForce, storageOverview } from '../../services/admin-storage';
import { requireAdmin } from '../../services/admins';
import { firstIssue } from '../../schemas';
import { AppError } from '../../utilities/errors';
import { adminActivityPaths, adminActivityRoutes } from './admin-activity';
import { adminInvitationPaths, adminInvitationRoutes } from './admin-invitations';
import { errors, isoDate, json, SESSION_OR_TOKEN } from './openapi-parts';
import { handler, jsonObjectBody } from './routing';

const accountChangeSchema = z
  .object({
    admin: z.boolean({ message: 'admin is true or false' }).optional(),
    quota: z
      .string({ message: 'quota is a size such as 2GB, "none" or "default"' })
      .max(32, 'quota is a size such as 2GB, "none" or "default"')
      .optional(),
    disabled: z.boolean({ message: 'disabled is true or false' }).optional(),
  })
  .strict()
  .refine((change) => Object.keys(change).length > 0, 'Say what to change: admin, quota or disabled');

export function adminRoutes(router: Router): void {
  // Anyone but an admin meets a 404 before a body is read or a parameter is judged.
  const adminsOnly: RequestHandler = (_req, res, next) => {
    requireAdmin(res.locals.ctx).then(() => next(), next);
  };
  router.use('/admin', adminsOnly);

  router.get(
    '/admin/users',
    handler(async (req, res) => {
      res.status(200).json(await listAccounts(res.locals.ctx, req.query));
    }),
  );

  router.post(
    '/admin/users',
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(201).json({ user: await createAccount(res.locals.ctx, req.body) });
    }),
  );

  router.patch(
    '/admin/users/:username',
    ...jsonObjectBody,
    handler(async (req, res) => {
      const parsed = accountChangeSchema.safeParse(req.body);
      if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
      const { ctx } = res.locals;
      const { username } = req.params;
      const change = parsed.data;
      if (change.admin !== undefined) await setAccountAdmin(ctx, username, change.admin);
      if (change.quota !== undefined) await setAccountQuota(ctx, username, change.quota);
      if (change.disabled !== undefined) await setAccountDisabled(ctx, username, change.disabled);
      res.status(200).json({ user: await describeAccount(ctx, username) });
    }),
  );

  router.post(
    '/admin/users/:username/sign-out',
    handler(async (req, res) => {
      res.status(200).json(await signAccountOutEverywhere(res.locals.ctx, req.params.username));
    }),
  );

  router.post(
    '/admin/users/:username/reset-2fa',
    handler(async (req, res) => {
      res.status(200).json(await resetAccountTwoFactor(res.locals.ctx, req.params.username));
    }),
  );

  router.get(
    '/admin/storage',
    handler(async (_req, res) => {
      res.status(200).json(await storageOverview(res.locals.ctx));
    }),
  );

  router.get(
    '/admin/settings',
    handler(async (_req, res) => {
      res.status(200).json({ settings: await settingsInForce(res.locals.ctx) });
    }),
  );

  router.delete(
    '/admin/users/:username',
    handler(async (req, res) => {
      res.status(200).json({ ok: true, removed: await deleteAccount(res.locals.ctx, req.params.username) });
    }),
  );

  adminInvitationRoutes(router);
  adminActivityRoutes(router);
}

const quotaFields = {
  quotaBytes: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .openapi({ description: 'The quota that applies; null: unlimited.' }),
  quotaSource: z.enum(['own', 'default']).openapi({ description: 'The user’s own quota, or DEFAULT_QUOTA_BYTES.' }),
};

const AdminUser = z
  .object({
    id: z.string(),
    username: z.string(),
    createdAt: isoDate,
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    ...quotaFields,
    disabled: z.boolean(),
    oidcSubject: z.string().nullable().openapi({ description: 'The provider identity linked to the account.' }),
    admin: z.boolean(),
  })
  .strict()
  .openapi('AdminUser');

const Account = z
  .object({
    id: z.string(),
    username: z.string(),
    createdAt: isoDate,
    lastSignInAt: isoDate.nullable(),
    files: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    ...quotaFields,
    twoFactor: z.boolean(),
    oidcSubject: z.string().nullable(),
    admin: z.boolean(),
    disabled: z.boolean(),
  })
  .strict()
  .openapi('Account');

const usernameParam = z.object({ username: z.string().openapi({ description: 'The account’s username, any case' }) });
const ADMIN = ['Admin'];

export function adminPaths(registry: OpenAPIRegistry): void {
  adminInvitationPaths(registry);
  adminActivityPaths(registry);
  registry.registerPath({
    method: 'get',
    path: '/admin/users',
    tags: ADMIN,
    summary: 'Every account, 50 to a page, searched by name and sorted by a column (admins only)',
    security: SESSION_OR_TOKEN,
    request: {
      query: z.object({
        q: z.string().max(64).optional().openapi({ description: 'Part of the username, any case' }),
        sort: z.enum(ACCOUNT_SORTS).optional().openapi({ description: 'Default: username' }),
        order: z.enum(['asc', 'desc']).optional(),
        page: z.string().regex(/^\d+$/).optional().openapi({ description: 'From 1; past the last: the last' }),
      }),
    },
    responses: {
      200: {
        description: 'One page of accounts',
        content: json(
          z
            .object({
              accounts: z.array(Account),
              total: z.number().int().nonnegative(),
              page: z.number().int().min(1),
              pages: z.number().int().min(1),
              query: z.object({
                q: z.string(),
                sort: z.enum(ACCOUNT_SORTS),
                order: z.enum(['asc', 'desc']),
                page: z.number().int().min(1),
              }),
            })
            .strict(),
        ),
      },
      ...errors(400, 404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/users',
    tags: ADMIN,
    summary: 'Create an account with a password (admins only)',
    security: SESSION_OR_TOKEN,
    request: {
      body: {
        content: json(z.object({ username: z.string(), password: z.string(), admin: z.boolean().optional() })),
      },
    },
    responses: {
      201: { description: 'Created', content: json(z.object({ user: AdminUser })) },
      ...errors(400, 404, 409),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/admin/users/{username}',
    tags: ADMIN,
    summary: 'Give or take the admin right, set the quota, disable or enable (admins only)',
    security: SESSION_OR_TOKEN,
    request: { params: usernameParam, body: { content: json(accountChangeSchema) } },
    responses: {
      200: { description: 'Changed', content: json(z.object({ user: AdminUser })) },
      ...errors(400, 404, 409),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/users/{username}/sign-out',
    tags: ADMIN,
    summary: 'End every session of the account (its API tokens stay) (admins only)',
    security: SESSION_OR_TOKEN,
    request: { params: usernameParam },
    responses: {
      200: { description: 'Ended', content: json(z.object({ sessionsEnded: z.number().int().nonnegative() })) },
      ...errors(404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/admin/users/{username}/reset-2fa',
    tags: ADMIN,
    summary: 'Turn the account’s two-factor codes off, for a lost phone (admins only)',
    security: SESSION_OR_TOKEN,
    request: { params: usernameParam },
    responses: {
      200: { description: 'Turned off', content: json(z.object({ wasOn: z.boolean() })) },
      ...errors(404),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/storage',
    tags: ADMIN,
    summary: 'What the site stores, in all and per user, where, and the room left (admins only)',
    security: SESSION_OR_TOKEN,
    responses: {
      200: {
        description: 'The storage',
        content: json(
          z
            .object({
              files: z.number().int().nonnegative(),
              bytes: z.number().int().nonnegative(),
              held: z.object({ bytes: z.number().int().nonnegative(), uploads: z.number().int().nonnegative() }),
              largestUsers: z.array(
                z.object({
                  username: z.string(),
                  files: z.number().int().nonnegative(),
                  bytes: z.number().int().nonnegative(),
                }),
              ),
              backend: z.union([
                z.object({ kind: z.literal('disk'), folder: z.string() }),
                z.object({ kind: z.literal('bucket'), bucket: z.string(), endpoint: z.string().nullable() }),
              ]),
              space: z
                .object({ freeBytes: z.number().int().nonnegative(), totalBytes: z.number().int().nonnegative() })
                .nullable()
                .openapi({ description: 'Of the disk content is written to; null for a bucket.' }),
            })
            .strict(),
        ),
      },
      ...errors(404),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/admin/settings',
    tags: ADMIN,
    summary: 'Every setting the service reads, as set; secrets hidden (admins only)',
    security: SESSION_OR_TOKEN,
    responses: {
      200: {
        description: 'The settings in force: null where a variable is unset and its default applies',
        content: json(z.object({ settings: z.array(z.object({ name: z.string(), value: z.string().nullable() })) })),
      },
      ...errors(404),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/admin/users/{username}',
    tags: ADMIN,
    summary: 'Delete the account with all its files, links and uploads (admins only; not your own)',
    security: SESSION_OR_TOKEN,
    request: { params: usernameParam },
    responses: {
      200: {
        description: 'Deleted, with what went',
        content: json(
          z.object({
            ok: z.literal(true),
            removed: z.object({ files: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() }),
          }),
        ),
      },
      ...errors(404, 409),
    },
  });
}
