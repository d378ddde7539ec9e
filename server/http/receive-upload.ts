// The upload use case of `POST /api/v1/files`, shared by the REST router and the fast path that
// answers the same request ahead of Express (server/doors/rest/upload-fast-path.ts): the
// request's first file part, streamed into the store for its signed-in user (ADR 0026).
import type { IncomingMessage } from 'node:http';
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

/** The settings of a collection's files: its expiry, so that none outlives the collection's link. */
const FILE_SETTINGS_OF_A_COLLECTION = ['expiresAt', 'expiresIn'];

/**
 * `POST /api/v1/collections` with a multipart body: every file part stored for the signed-in
 * user (a `path` field before a part names its path), then one collection of them, with the
 * title and share settings sent before the first file. All or nothing: when any file or the
 * collection is refused, the files stored so far are deleted again.
 */
export async function receiveCollectionUpload(ctx: ServiceContext, req: IncomingMessage): Promise<CollectionDto> {
  const { results, settings } = await withEachUploadedFile(
    req.headers,
    req,
    { maxFileBytes: ctx.config.maxUploadBytes, fieldsBeforeFile: [...SHARE_SETTING_FIELDS, 'title'] },
    async ({ upload, path }) => {
      const fileSettings = Object.fromEntries(
        Object.entries(upload.settings ?? {}).filter(([name]) => FILE_SETTINGS_OF_A_COLLECTION.includes(name)),
      );
      return { file: await uploadFile(ctx, { ...upload, settings: fileSettings }), path };
    },
    (stored) => deleteStored(ctx, stored.file),
  );
  try {
    return await createCollection(ctx, {
      ...settings,
      files: results.map(({ file, path }) => ({ id: file.id, path })),
    });
  } catch (error) {
    for (const { file } of results) await deleteStored(ctx, file);
    throw error;
  }
}

async function deleteStored(ctx: ServiceContext, file: FileDto): Promise<void> {
  await deleteFile(ctx, file.id).catch((error: unknown) => {
    ctx.log.warn({ err: error, fileId: file.id }, 'file of a refused collection upload not deleted');
  });
}
