// The upload page's form without JavaScript (app/routes/upload.tsx): its file input takes several
// files. One file is stored as `POST /api/v1/files` stores it; several are each stored so, then
// made one collection with the form's title and link options (ADR 0038).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context';
import { AppError } from '../errors';
import { SHARE_SETTING_FIELDS } from '../schemas';
import { type CollectionDto, createCollection } from '../services/collections';
import { deleteFile, type FileDto, uploadFile } from '../services/files';
import { withEachUploadedFile } from './multipart';

/** Room for the multipart framing and the form's small fields around its files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

type UploadFormResult = { kind: 'file'; file: FileDto } | { kind: 'collection'; collection: CollectionDto };

/**
 * Stores the files of the upload form. Each file is stored with the form's link options (the first
 * is under way before the form is known to carry more, and no file's own link is looser than the
 * collection's); with several, the collection gets them too. All or nothing: when a file or the
 * collection is refused, the files stored so far are deleted again. `sent` hears the form's fields
 * (to show them again when the form is refused).
 */
export async function receiveUploadForm(
  ctx: ServiceContext,
  headers: IncomingHttpHeaders,
  body: Readable,
  sent: (fields: Record<string, string>) => void = () => {},
): Promise<UploadFormResult> {
  // The form sends at most MAX_UPLOAD_BYTES in one request, one file or several: a body declared
  // larger is refused before a byte of it is read (ADR 0021), as the one-file form always was.
  const declaredLength = Number(headers['content-length'] ?? Number.NaN);
  if (declaredLength > ctx.config.maxUploadBytes + FORM_OVERHEAD_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  const { results, settings } = await withEachUploadedFile(
    headers,
    body,
    { maxFileBytes: ctx.config.maxUploadBytes, fieldsBeforeFile: [...SHARE_SETTING_FIELDS, 'title'] },
    ({ upload }) => {
      const { title: _title, ...linkOptions } = upload.settings ?? {};
      sent(upload.settings ?? {});
      return uploadFile(ctx, { ...upload, settings: linkOptions });
    },
    (file) => deleteStored(ctx, file),
  );
  if (results.length === 1) return { kind: 'file', file: results[0] };
  try {
    const collection = await createCollection(ctx, { ...settings, files: results.map((file) => ({ id: file.id })) });
    return { kind: 'collection', collection };
  } catch (error) {
    for (const file of results) await deleteStored(ctx, file);
    throw error;
  }
}

async function deleteStored(ctx: ServiceContext, file: FileDto): Promise<void> {
  await deleteFile(ctx, file.id).catch((error: unknown) => {
    ctx.log.warn({ err: error, fileId: file.id }, 'file of a refused upload form not deleted');
  });
}
