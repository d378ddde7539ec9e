// Collections (docs/api.md): several of the caller's files behind one link; their routes and
// their OpenAPI description side by side.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../utilities/errors';
import { receiveCollectionUpload } from '../../http/receive-upload';
import {
  addToCollectionSchema,
  collectionChangeSchema,
  MAX_DOWNLOADS_LIMIT,
  newCollectionSchema,
  shareSettingsFields,
} from '../../schemas';
import {
  addToCollection,
  createCollection,
  deleteCollection,
  getOwnCollection,
  listCollections,
  removeFromCollection,
  updateCollection,
} from '../../services/collections';
import { errors, File, idParam, isoDate, json, SESSION_OR_TOKEN } from './openapi-parts';
import { handler, jsonBody, requireSession } from './routing';

/** A collection's body may list thousands of files ({ id, path } each): room for ten thousand. */
const collectionBody = jsonBody('2mb');

/** `?name=true|false` (absent: false); anything else is a 400 naming the parameter. */
function parseFlag(value: unknown, name: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new AppError('BAD_REQUEST', `${name} must be true or false`);
}

export function collectionRoutes(router: Router): void {
  router.get(
    '/collections',
    requireSession,
    handler(async (_req, res) => {
      res.status(200).json({ collections: await listCollections(res.locals.ctx) });
    }),
  );

  // JSON naming files already uploaded; or several files in one multipart body, each stored, then
  // one collection of them.
  router.post(
    '/collections',
    requireSession,
    (req, res, next) => {
      if (!req.is('multipart/form-data')) return next();
      receiveCollectionUpload(res.locals.ctx, req).then(
        (collection) => void res.status(201).location(collection.url).json({ collection }),
        next,
      );
    },
    ...collectionBody,
    handler(async (req, res) => {
      const collection = await createCollection(res.locals.ctx, req.body);
      res.status(201).location(collection.url).json({ collection });
    }),
  );

  router.get(
    '/collections/:id',
    requireSession,
    handler(async (req, res) => {
      res.status(200).json({ collection: await getOwnCollection(res.locals.ctx, req.params.id) });
    }),
  );

  router.patch(
    '/collections/:id',
    requireSession,
    ...collectionBody,
    handler(async (req, res) => {
      res.status(200).json({ collection: await updateCollection(res.locals.ctx, req.params.id, req.body) });
    }),
  );

  router.delete(
    '/collections/:id',
    requireSession,
    handler(async (req, res) => {
      const deleteFiles = parseFlag(req.query.deleteFiles, 'deleteFiles');
      const collection = await deleteCollection(res.locals.ctx, req.params.id, { deleteFiles });
      res.status(200).json({ ok: true, filesDeleted: deleteFiles ? collection.fileCount : 0 });
    }),
  );

  router.post(
    '/collections/:id/files',
    requireSession,
    ...collectionBody,
    handler(async (req, res) => {
      res.status(200).json({ collection: await addToCollection(res.locals.ctx, req.params.id, req.body) });
    }),
  );

  router.delete(
    '/collections/:id/files/:fileId',
    requireSession,
    handler(async (req, res) => {
      const collection = await removeFromCollection(res.locals.ctx, req.params.id, req.params.fileId);
      res.status(200).json({ collection });
    }),
  );
}

const collectionUpload = shareSettingsFields
  .extend({
    title: z.string().openapi({ description: 'The collection’s title; "N files" when left out.' }),
    path: z.string().openapi({
      description: 'Sent just before a file part: that file’s path in the collection (its name when left out).',
    }),
    file: z.array(z.string().openapi({ format: 'binary' })).openapi({
      description:
        'The files, in order (any field name): every file part is stored, each with the share settings sent. The title and share settings come before the first.',
    }),
  })
  .partial({ expiresAt: true, expiresIn: true, maxDownloads: true, password: true, title: true, path: true })
  .openapi({ required: ['file'] });

const CollectionSummary = z
  .object({
    id: z.string(),
    userId: z.string(),
    title: z.string().openapi({ example: 'Holiday photos' }),
    url: z.string().url().openapi({ description: 'The public link, /c/<id>' }),
    createdAt: isoDate,
    expiresAt: isoDate.nullable().openapi({ description: 'When the link stops working; null: never.' }),
    maxDownloads: z
      .number()
      .int()
      .min(1)
      .max(MAX_DOWNLOADS_LIMIT)
      .nullable()
      .openapi({ description: '"Download all" archives allowed in all; null: no limit.' }),
    downloads: z.number().int().nonnegative().openapi({ description: 'Archives started by others than the owner.' }),
    hasPassword: z.boolean(),
    fileCount: z.number().int().nonnegative(),
    totalSize: z.number().int().nonnegative().openapi({ description: 'The sum of its files’ sizes, in bytes.' }),
  })
  .strict();
const Collection = CollectionSummary.extend({
  files: z.array(
    z
      .object({
        path: z.string().openapi({ description: 'Where the file sits in the collection and its archive.' }),
        file: File,
      })
      .strict(),
  ),
})
  .strict()
  .openapi('Collection');

export function collectionPaths(registry: OpenAPIRegistry): void {
  const one = json(z.object({ collection: Collection }));
  registry.registerPath({
    method: 'get',
    path: '/collections',
    tags: ['Collections'],
    summary: 'Your collections, newest first (without their files)',
    security: SESSION_OR_TOKEN,
    responses: {
      200: { description: 'Your collections', content: json(z.object({ collections: z.array(CollectionSummary) })) },
      ...errors(401, 403),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/collections',
    tags: ['Collections'],
    summary: 'Make a collection: of files you have uploaded (JSON), or of the files of a multipart body, each stored',
    security: SESSION_OR_TOKEN,
    request: {
      body: {
        content: {
          ...json(newCollectionSchema),
          'multipart/form-data': { schema: collectionUpload },
        },
      },
    },
    responses: {
      201: { description: 'Made; Location is its public link', content: one },
      ...errors(400, 401, 403),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary: 'One of your collections, with its files in order',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection') },
    responses: { 200: { description: 'The collection', content: one }, ...errors(401, 403, 404) },
  });
  registry.registerPath({
    method: 'patch',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary:
      'Change a collection: its title, its share settings (null clears one), and with `files` which files it holds, in that order',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection'), body: { content: json(collectionChangeSchema) } },
    responses: {
      200: { description: 'The collection as it is now', content: one },
      ...errors(400, 401, 403, 404, 410),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/collections/{id}',
    tags: ['Collections'],
    summary: 'Delete a collection; with deleteFiles=true its files too (otherwise they stay, with their own links)',
    security: SESSION_OR_TOKEN,
    request: {
      params: idParam('collection'),
      query: z.object({ deleteFiles: z.enum(['true', 'false']).optional() }),
    },
    responses: {
      200: {
        description: 'Deleted',
        content: json(z.object({ ok: z.literal(true), filesDeleted: z.number().int().nonnegative() })),
      },
      ...errors(400, 401, 403, 404),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/collections/{id}/files',
    tags: ['Collections'],
    summary: 'Add files of yours at the end of a collection',
    security: SESSION_OR_TOKEN,
    request: { params: idParam('collection'), body: { content: json(addToCollectionSchema) } },
    responses: {
      200: { description: 'The collection as it is now', content: one },
      ...errors(400, 401, 403, 404, 409),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/collections/{id}/files/{fileId}',
    tags: ['Collections'],
    summary: 'Take a file out of a collection (the file stays)',
    security: SESSION_OR_TOKEN,
    request: {
      params: idParam('collection').extend({ fileId: z.string().openapi({ description: "The file's id" }) }),
    },
    responses: { 200: { description: 'The collection as it is now', content: one }, ...errors(401, 403, 404) },
  });
}
