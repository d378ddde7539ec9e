// The account (/me): who the caller is and the space their files use, their preferences, and
// their password; the routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { changePasswordSchema } from '../../schemas';
import { myStorageReport } from '../../services/storage-usage';
import { accountPreferencesSchema, changeOwnPassword, myFileListView, setMyPreferences } from '../../services/users';
import { errors, json, SESSION_ONLY, SESSION_OR_TOKEN, User } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

/** GET and PATCH /me, POST /me/password. */
export function meRoutes(router: Router): void {
  router.get(
    '/me',
    requireSession,
    handler(async (_req, res) => {
      const ctx = res.locals.ctx;
      res.status(200).json({ ...(await myStorageReport(ctx)), fileListView: await myFileListView(ctx) });
    }),
  );

  // The account's preferences: how My files shows the files (ADR 0046).
  router.patch(
    '/me',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json(await setMyPreferences(res.locals.ctx, req.body));
    }),
  );

  // The password: with a session only, like the tokens and the sessions.
  router.post(
    '/me/password',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      res.status(200).json({ ok: true, ...(await changeOwnPassword(res.locals.ctx, req.body)) });
    }),
  );
}

const FileListView = accountPreferencesSchema.shape.fileListView.openapi({
  description: 'How My files shows your files: a table (the default) or a gallery of cards.',
});

export function mePaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/me',
    tags: ['Account'],
    summary: 'Who you are, the space your files use, what unfinished uploads hold, and your quota',
    security: SESSION_OR_TOKEN,
    responses: {
      200: {
        description: 'You and your storage',
        content: json(
          z.object({
            user: User,
            usage: z
              .object({
                bytes: z.number().int().nonnegative().openapi({ description: 'What your files take.' }),
                files: z.number().int().nonnegative(),
                heldBytes: z.number().int().nonnegative().openapi({
                  description:
                    'Held against your quota by unfinished uploads (multipart ones under way; resumable ones, their whole Upload-Length) until they finish or are cancelled.',
                }),
                unfinishedUploads: z
                  .number()
                  .int()
                  .nonnegative()
                  .openapi({ description: 'How many uploads hold `heldBytes`.' }),
              })
              .strict(),
            quota: z
              .number()
              .int()
              .nonnegative()
              .nullable()
              .openapi({ description: 'Bytes you may fill; null: unlimited.' }),
            fileListView: FileListView,
          }),
        ),
      },
      ...errors(401),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/me',
    tags: ['Account'],
    summary: 'Change your preferences: how My files shows your files (kept across logins)',
    security: SESSION_OR_TOKEN,
    request: { body: { content: json(accountPreferencesSchema) } },
    responses: {
      200: { description: 'Stored', content: json(z.object({ fileListView: FileListView }).strict()) },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/me/password',
    tags: ['Account'],
    summary: 'Change your password: every other session is logged out (API tokens stay)',
    security: SESSION_ONLY,
    request: { body: { content: json(changePasswordSchema) } },
    responses: {
      200: {
        description: 'Changed',
        content: json(z.object({ ok: z.literal(true), otherSessionsRevoked: z.number().int().nonnegative() })),
      },
      ...errors(400, 401, 403, 429),
    },
  });
}
