// Files (docs/api.md): the caller's list, the multipart upload, and one file read, changed or
// deleted; their routes and their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { shareSettingsFields } from '../../schemas';
import { receiveUpload } from '../../http/receive-upload';
import {
  deleteFile,
  fileListPageSchema,
  getOwnFile,
  listFilesJson,
  listFilesPage,
  updateFile,
} from '../../services/files';
import { errors, File, FileCreated, idParam, json, Ok, SESSION_OR_TOKEN } from './openapi-parts';
import { handler, jsonObjectBody, requireSession } from './routing';

/** GET and POST /files. */
export function fileListRoutes(router: Router): void {
  router.get(
    '/files',
    requireSession,
    handler(async (req, res) => {
      // Without `limit` the whole list, as the first version of the API answered; with it, one page and a cursor.
      // Either may be narrowed (`q`, `type`) and ordered (`sort`).
      const { limit, cursor, q, type, sort } = req.query;
      if (limit === undefined && cursor === undefined) {
        res
          .status(200)
          .type('json')
          .send(`{"files":${await listFilesJson(res.locals.ctx, { q, type, sort })}}`);
        return;
      }
      res.status(200).json(await listFilesPage(res.locals.ctx, { limit: limit ?? '100', cursor, q, type, sort }));
    }),
  );

  router.post(
    '/files',
    requireSession,
    handler(async (req, res) => {
      res.status(201).json(await receiveUpload(res.locals.ctx, req));
    }),
  );
}

/** GET, PATCH and DELETE /files/:id. */
export function oneFileRoutes(router: Router): void {
  router.get(
    '/files/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ file: await getOwnFile(res.locals.ctx, req.params.id) });
    }),
  );

  router.patch(
    '/files/:id',
    requireSession,
    ...jsonObjectBody,
    handler(async (req, res) => {
      // `originalName` renames the file; the other keys are its share settings.
      const file = await updateFile(res.locals.ctx, req.params.id, req.body);
      res.status(200).json({ file });
    }),
  );

  router.delete(
    '/files/:id',
    requireSession,
    handler(async (req, res) => {
      await deleteFile(res.locals.ctx, req.params.id);
      res.status(200).json({ ok: true });
    }),
  );
}

// Written out with the File's fields (not `extend`, which the document would give as an allOf
// that no object can match while each part forbids the other's fields).
const ListedFile = z
  .object({
    ...File.shape,
    request: z.object({ id: z.string(), title: z.string() }).strict().nullable().openapi({
      description:
        'The file request a guest sent it through; null for your own uploads, or once the request is deleted.',
    }),
    receivedFrom: z
      .object({
        name: z.string().nullable().openapi({ description: 'The name the guest left, as text; null: none.' }),
        note: z.string().nullable().openapi({ description: 'The note the guest left, as text; null: none.' }),
      })
      .strict()
      .nullable()
      .openapi({
        description:
          'What the guest who sent it left; null when they left neither a name nor a note, or for your own uploads.',
      }),
  })
  .strict()
  .openapi('ListedFile');

/** The body of PATCH /files/{id}: a new name, share settings, or both. */
const fileChange = shareSettingsFields
  .extend({
    originalName: z
      .string()
      .optional()
      .openapi({ description: 'The file’s new name.', example: 'holiday in Rome.jpg' }),
  })
  .openapi('FileChange');

const upload = shareSettingsFields
  .extend({
    file: z.string().openapi({
      format: 'binary',
      description: 'The file: the first file part is stored; settings must come before it.',
    }),
  })
  .partial({ expiresAt: true, expiresIn: true, maxDownloads: true, password: true })
  .openapi({ required: ['file'] });

export function fileListPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/files',
    tags: ['Files'],
    summary: 'List your files, newest first or in another order, narrowed by name and type',
    description:
      'Without `limit` and `cursor`: every file. With them: one page and the cursor of the next (null at the end). ' +
      '`q`, `type` and `sort` apply to both; pass the same ones with each cursor (a cursor of another `sort` is a 400). ' +
      'Types: images, video, audio (by MIME type), documents (text, PDF, office formats), code (source, scripts, markup, ' +
      'JSON, YAML), other (the rest). Each file also names the file request a guest sent it through, and what the guest left.',
    security: SESSION_OR_TOKEN,
    request: { query: fileListPageSchema.partial() },
    responses: {
      200: {
        description: 'Your files',
        content: json(z.object({ files: z.array(ListedFile), nextCursor: z.string().nullable().optional() })),
      },
      ...errors(400, 401),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/files',
    tags: ['Files'],
    summary: 'Upload a file (multipart/form-data, streamed)',
    security: SESSION_OR_TOKEN,
    request: { body: { content: { 'multipart/form-data': { schema: upload } } } },
    responses: {
      201: { description: 'Stored; `url` is the public share link', content: json(FileCreated) },
      ...errors(400, 401, 413),
    },
  });
}

export function oneFilePaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'One of your files, with its views and downloads so far',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file') },
    responses: {
      200: { description: 'The file as it is now', content: json(z.object({ file: File })) },
      ...errors(401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'patch',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'Rename a file or change its share settings (a key left out stays as it is; null clears a setting)',
    description:
      '`originalName` renames the file: the name its page, the list and its downloads show. Its content and link stay ' +
      'the same. The name is cleaned as an upload’s is (control characters dropped, trimmed, shortened past 255 ' +
      'characters keeping its extension); one that is not a string or is left empty is a 400, and nothing changes.',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file'), body: { content: json(fileChange) } },
    responses: {
      200: { description: 'The file as it is now', content: json(z.object({ file: File })) },
      ...errors(400, 401, 403, 404, 410),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/files/{id}',
    tags: ['Files'],
    summary: 'Delete a file and its content',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('file') },
    responses: { 200: { description: 'Deleted', content: json(Ok) }, ...errors(401, 403, 404) },
  });
}
