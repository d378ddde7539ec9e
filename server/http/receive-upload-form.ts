// The upload page's form without JavaScript (app/routes/upload.tsx): its file input takes several
// files. One file is stored as `POST /api/v1/files` stores it; several are each stored so, then
// made one collection with the form's title and link options (ADR 0038).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ServiceContext } from '../context';
import { AppError } from '../utilities/errors';
import { type CollectionDto, createCollection } from '../services/collections';
import type { FileDto } from '../services/files';
import { storeEachFile } from './receive-upload';

/** Room for the multipart framing and the form's small fields around its files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

type UploadFormResult = { kind: 'file'; file: FileDto } | { kind: 'collection'; collection: CollectionDto };

/**
 * Stores the files of the upload form (storeEachFile: each with the form's link options, all or
 * nothing); with several, one collection of them gets the options too. `sent` hears the form's
 * fields (to show them again when the form is refused).
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
  return storeEachFile(
    ctx,
    headers,
    body,
    async (stored, fields): Promise<UploadFormResult> =>
      stored.length === 1
        ? { kind: 'file', file: stored[0].file }
        : {
            kind: 'collection',
            collection: await createCollection(ctx, { ...fields, files: stored.map(({ file }) => ({ id: file.id })) }),
          },
    sent,
  );
}
