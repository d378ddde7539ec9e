// File requests (ADR 0048): links through which guests send files into the caller's space. Their
// routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import {
  createFileRequest,
  deleteFileRequest,
  getOwnFileRequest,
  listFileRequests,
  setFileRequestClosed,
} from '../../services/file-requests/owner';
import { errors, idParam, isoDate, json, Ok, SESSION_OR_TOKEN } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

export function fileRequestRoutes(router: Router): void {
  router.get(
    '/requests',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ requests: await listFileRequests(res.locals.ctx) });
    }),
  );

  router.post(
    '/requests',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      const request = await createFileRequest(res.locals.ctx, req.body);
      res.status(201).location(request.url).json({ request });
    }),
  );

  router.get(
    '/requests/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json(await getOwnFileRequest(res.locals.ctx, req.params.id));
    }),
  );

  router.patch(
    '/requests/:id',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      const body = (req.body ?? {}) as { closed?: unknown };
      res.status(200).json({ request: await setFileRequestClosed(res.locals.ctx, req.params.id, body.closed) });
    }),
  );

  router.delete(
    '/requests/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteFileRequest(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );
}

const FileRequest = z
  .object({
    id: z.string(),
    url: z.string().url().openapi({ description: 'The link to give guests, /r/<id>' }),
    title: z.string().openapi({ example: 'Scans for the tax return' }),
    message: z.string().openapi({ description: 'Shown to guests under the title; empty for none.' }),
    createdAt: isoDate,
    expiresAt: isoDate.nullable().openapi({ description: 'When the link stops taking files; null: never.' }),
    maxFiles: z.number().int().min(1).nullable().openapi({ description: 'Files it takes in all; null: no limit.' }),
    maxBytes: z.number().int().min(1).nullable().openapi({ description: 'Bytes it takes in all; null: no limit.' }),
    hasPassword: z.boolean(),
    requireName: z.boolean().openapi({ description: 'Whether guests must leave a name.' }),
    state: z.enum(['open', 'closed', 'expired', 'full']),
    filesReceived: z.number().int().nonnegative(),
    bytesReceived: z.number().int().nonnegative(),
    newFiles: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: 'Files received since you last opened /requests.' }),
  })
  .strict()
  .openapi('FileRequest');

const ReceivedFile = z
  .object({
    id: z.string().openapi({ description: 'The file’s id: one of your files (GET /files lists it too).' }),
    originalName: z.string(),
    mimeType: z.string(),
    size: z.number().int().nonnegative(),
    createdAt: isoDate,
    guestName: z.string().nullable().openapi({ description: 'The name the guest left, as text; null: none.' }),
    guestNote: z.string().nullable().openapi({ description: 'The note the guest left, as text; null: none.' }),
    isNew: z.boolean(),
  })
  .strict()
  .openapi('ReceivedFile');

const newFileRequestBody = z
  .object({
    title: z.string().min(1).max(200),
    message: z.string().max(2000).optional(),
    expiresIn: z
      .union([z.number().int().min(60), z.literal('never')])
      .optional()
      .openapi({ description: 'Seconds from now until the link stops taking files, or "never"; default 7 days.' }),
    expiresAt: isoDate.optional().openapi({ description: 'Or a date in the future.' }),
    maxFiles: z.number().int().min(1).nullable().optional(),
    maxBytes: z.number().int().min(1).nullable().optional(),
    password: z.string().max(200).optional().openapi({ description: 'Guests type it before they can send.' }),
    requireName: z.boolean().optional(),
  })
  .openapi('NewFileRequest');

export function fileRequestPaths(registry: OpenAPIRegistry): void {
  const one = json(z.object({ request: FileRequest }));
  registry.registerPath({
    method: 'get',
    path: '/requests',
    tags: ['File requests'],
    summary: 'Your file requests, newest first, with what each has received',
    security: SESSION_OR_TOKEN,
    responses: {
      200: { description: 'Your requests', content: json(z.object({ requests: z.array(FileRequest) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/requests',
    tags: ['File requests'],
    summary: 'Make a file request: a link, /r/<id>, through which anyone with it sends you files',
    security: SESSION_OR_TOKEN,
    request: { body: { content: json(newFileRequestBody) } },
    responses: { 201: { description: 'Made; Location is its link', content: one }, ...errors(400, 401, 403) },
  });
  registry.registerPath({
    method: 'get',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'One of your requests with the files it received, newest first',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request') },
    responses: {
      200: {
        description: 'The request and its files',
        content: json(z.object({ request: FileRequest, files: z.array(ReceivedFile) })),
      },
      ...errors(401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'Close a request (it takes no more files) or reopen it',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request'), body: { content: json(z.object({ closed: z.boolean() })) } },
    responses: { 200: { description: 'The request as it is now', content: one }, ...errors(400, 401, 403, 404) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/requests/{id}',
    tags: ['File requests'],
    summary: 'Delete a request: its link stops working; the files it received stay yours',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('request') },
    responses: { 200: { description: 'Deleted', content: json(Ok) }, ...errors(401, 403, 404) },
  });
}
