// The upload use case of `POST /api/v1/files`, shared by the REST router and the fast path that
// answers the same request ahead of Express (server/doors/rest/upload-fast-path.ts): the
// request's first file part, streamed into the store for its signed-in user (ADR 0026).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context';
import { SHARE_SETTING_FIELDS } from '../schemas';
import { type CollectionDto, createCollection } from '../services/collections';
import { deleteFile, type FileDto, shareUrl, uploadFile } from '../services/files';
import { withEachUploadedFile, withFirstUploadedFile } from './multipart';

/** `POST /api/v1/files`: the request's one file stored for its signed-in user (also ahead of Express, see above). */
export async function receiveUpload(
  ctx: ServiceContext,
  req: IncomingMessage,
): Promise<{ file: FileDto; url: string }> {
  const file = await withFirstUploadedFile(
    req.headers,
    req,
    { maxFileBytes: ctx.config.maxUploadBytes, fieldsBeforeFile: SHARE_SETTING_FIELDS },
    (upload) => uploadFile(ctx, upload),
  );
  return { file, url: shareUrl(ctx, file.id) };
}

/** A file stored from a multipart body of several, with the `path` field sent just before it. */
interface StoredPart {
  file: FileDto;
  path: string | undefined;
}

/**
 * Stores every file part of a multipart body for the signed-in user, each with the title-less
 * link options sent before the first file (no file's own link is looser than the collection it
 * goes into: the first is under way before the body shows whether more follow), then calls
 * `finish` with them and the fields. All or nothing: when a file, the body or `finish` is
 * refused, the files stored so far are deleted again. `sent` hears the fields as each file starts.
 */
export async function storeEachFile<T>(
  ctx: ServiceContext,
  headers: IncomingHttpHeaders,
  body: Readable,
  finish: (stored: StoredPart[], fields: Record<string, string>) => Promise<T>,
  sent: (fields: Record<string, string>) => void = () => {},
): Promise<T> {
  const { results, settings } = await withEachUploadedFile(
    headers,
    body,
    { maxFileBytes: ctx.config.maxUploadBytes, fieldsBeforeFile: [...SHARE_SETTING_FIELDS, 'title'] },
    async ({ upload, path }) => {
      const { title: _title, ...linkOptions } = upload.settings ?? {};
      sent(upload.settings ?? {});
      return { file: await uploadFile(ctx, { ...upload, settings: linkOptions }), path };
    },
    (stored) => deleteStored(ctx, stored.file),
  );
  try {
    return await finish(results, settings);
  } catch (error) {
    for (const { file } of results) await deleteStored(ctx, file);
    throw error;
  }
}

/**
 * `POST /api/v1/collections` with a multipart body: every file part stored (a `path` field before
 * a part names its path), then one collection of them with the title and share settings sent
 * before the first file.
 */
export function receiveCollectionUpload(ctx: ServiceContext, req: IncomingMessage): Promise<CollectionDto> {
  return storeEachFile(ctx, req.headers, req, (stored, fields) =>
    createCollection(ctx, { ...fields, files: stored.map(({ file, path }) => ({ id: file.id, path })) }),
  );
}

async function deleteStored(ctx: ServiceContext, file: FileDto): Promise<void> {
  await deleteFile(ctx, file.id).catch((error: unknown) => {
    ctx.log.warn({ err: error, fileId: file.id }, 'file of a refused upload of several files not deleted');
  });
}
