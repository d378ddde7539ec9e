// Resumable uploads (tus 1.0, docs/api.md): the routes that hand the requests to the tus server,
// and their OpenAPI description.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { errors, FileCreated, idParam, json, SESSION_OR_TOKEN } from './openapi-parts';
import { requireSession } from './routing';

/** `tus` is the tus server's handler, made by the router that mounts it. */
export function resumableUploadRoutes(router: Router, tus: RequestHandler): void {
  // OPTIONS (what the server supports) is open to anyone.
  router.options('/uploads', tus);
  router.post('/uploads', requireSession, tus);
  router.head('/uploads/:id', requireSession, tus);
  router.patch('/uploads/:id', requireSession, tus);
  router.delete('/uploads/:id', requireSession, tus);
}

/** tus 1.0 (https://tus.io/protocols/resumable-upload): the headers carry the protocol; bodies are bytes. */
export function resumableUploadPaths(registry: OpenAPIRegistry): void {
  const tusResumable = z
    .literal('1.0.0')
    .openapi({ description: 'The protocol version, on every request but OPTIONS.' });
  const uploadOffset = z.string().regex(/^\d+$/).openapi({ description: 'Where the upload stands, in bytes.' });
  const bytes = { 'application/offset+octet-stream': { schema: z.string().openapi({ format: 'binary' }) } };
  // The request that brings the last byte answers the file; the others have no body.
  const fileOrNothing = {
    ...json(FileCreated),
    'text/plain': { schema: z.string().max(0).openapi({ description: 'Empty: the upload is not complete yet.' }) },
  };
  const uploadId = idParam('upload');
  registry.registerPath({
    method: 'options',
    path: '/uploads',
    tags: ['Resumable uploads'],
    summary: 'What the tus server supports: Tus-Version, Tus-Extension, Tus-Max-Size',
    security: [],
    responses: { 204: { description: 'The capabilities, in headers' } },
  });
  registry.registerPath({
    method: 'post',
    path: '/uploads',
    tags: ['Resumable uploads'],
    summary: 'Start a resumable upload (tus creation; creation-with-upload when bytes come along)',
    description:
      'Upload-Metadata carries `filename` and `filetype` (cleaned as for a multipart upload) and optionally the share settings ' +
      '`expiresAt`, `expiresIn`, `maxDownloads`, `password`. The whole Upload-Length counts against your quota until the upload ' +
      'finishes or expires (24 hours after it began). Location is the upload’s address. Upload-Length is required: ' +
      'Upload-Defer-Length (creation-defer-length) is not supported, and is a 400.',
    security: SESSION_OR_TOKEN,
    request: {
      headers: z.object({
        'Tus-Resumable': tusResumable,
        'Upload-Length': z.string().regex(/^\d+$/).openapi({ description: 'The size of the whole file, in bytes.' }),
        'Upload-Metadata': z.string().optional().openapi({ description: 'Comma-separated `key base64(value)` pairs.' }),
      }),
      body: { content: bytes, required: false },
    },
    responses: {
      201: {
        description: 'Created (Location, Upload-Offset, Upload-Expires); with every byte already sent, the file',
        content: fileOrNothing,
      },
      ...errors(400, 401, 412, 413),
    },
  });
  registry.registerPath({
    method: 'head',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Where an upload stands: Upload-Offset, Upload-Length, Upload-Metadata',
    security: SESSION_OR_TOKEN,
    request: { params: uploadId, headers: z.object({ 'Tus-Resumable': tusResumable }) },
    responses: { 200: { description: 'The upload’s offset and length, in headers' }, ...errors(401, 404, 410, 412) },
  });
  registry.registerPath({
    method: 'patch',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Send bytes from Upload-Offset on (Content-Type: application/offset+octet-stream)',
    description:
      'Bytes that arrive are kept even if the connection breaks; HEAD then says where to resume. ' +
      'A wrong Upload-Offset is 409; bytes past Upload-Length are 413; another request writing to the upload makes this one wait, then 423. ' +
      'Without Upload-Offset, with Upload-Length (the length is fixed at creation), or on a finished upload: 400.',
    security: SESSION_OR_TOKEN,
    request: {
      params: uploadId,
      headers: z.object({ 'Tus-Resumable': tusResumable, 'Upload-Offset': uploadOffset }),
      body: { content: bytes },
    },
    responses: {
      200: { description: 'The last bytes: the upload is now this file', content: fileOrNothing },
      204: { description: 'Stored; Upload-Offset is the new offset' },
      ...errors(400, 401, 404, 409, 410, 412, 413, 415, 423),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/uploads/{id}',
    tags: ['Resumable uploads'],
    summary: 'Abandon an unfinished upload and remove its bytes (tus termination)',
    security: SESSION_OR_TOKEN,
    request: { params: uploadId, headers: z.object({ 'Tus-Resumable': tusResumable }) },
    responses: { 204: { description: 'Removed' }, ...errors(400, 401, 404, 412) },
  });
}
