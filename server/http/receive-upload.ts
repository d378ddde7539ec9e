// The upload use case of `POST /api/v1/files`, shared by the REST router and the fast path that
// answers the same request ahead of Express (server/doors/rest/upload-fast-path.ts): the
// request's first file part, streamed into the store for its signed-in user (ADR 0026).
import type { IncomingMessage } from 'node:http';
import type { ServiceContext } from '../context';
import { SHARE_SETTING_FIELDS } from '../schemas';
import { type FileDto, shareUrl, uploadFile } from '../services/files';
import { withFirstUploadedFile } from './multipart';

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
