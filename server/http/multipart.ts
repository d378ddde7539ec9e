// Streams the first file of a multipart body to a handler, never holding it in memory.
// Used by the REST upload and the upload page alike. The traps (STACK.md): busboy decodes
// names as latin1 unless told; a file stream that is destroyed before its end stalls busboy
// for good; `pipe` leaves busboy hanging when the client aborts — hence `pipeline`, and a
// PassThrough between busboy and the handler so a failing handler never stalls the parser.
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { AppError } from '../errors';
import type { NewUpload } from '../services/files';

/** Room for the multipart framing and a few small fields around one file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export interface MultipartOptions {
  /** The largest file accepted; a larger one fails with PAYLOAD_TOO_LARGE. */
  maxFileBytes: number;
}

/**
 * Parses `body` and calls `handle` with the first part that carries a file with a name.
 * Resolves with what `handle` returns; rejects with an AppError for a body without a file
 * (400 "No file uploaded"), a malformed body (400), or a declared length far past the limit (413).
 */
export async function withFirstUploadedFile<T>(
  headers: IncomingHttpHeaders,
  body: Readable,
  options: MultipartOptions,
  handle: (upload: NewUpload) => Promise<T>,
): Promise<T> {
  const declaredLength = Number(headers['content-length'] ?? NaN);
  if (declaredLength > options.maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  }

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers,
      defParamCharset: 'utf8',
      // One byte over the limit: busboy flags a file of exactly `fileSize` bytes as truncated.
      limits: {
        fileSize: options.maxFileBytes + 1,
        files: 5,
        fields: 20,
        fieldSize: 64 * 1024,
        parts: 30,
        headerPairs: 50,
      },
    });
  } catch {
    throw new AppError('BAD_REQUEST', 'Expected a multipart/form-data body');
  }

  const state: { handling: Promise<T> | null } = { handling: null };
  parser.on('file', (_field, fileStream, info) => {
    // Only the first named file counts; later ones and empty file inputs are read and dropped.
    if (state.handling || !info.filename) {
      fileStream.resume();
      return;
    }
    const content = new PassThrough({ highWaterMark: 1024 * 1024 });
    fileStream.on('error', (error) => content.destroy(error));
    content.on('close', () => {
      // The handler gave up early: keep reading so busboy can reach the end of the body.
      if (!fileStream.readableEnded) {
        fileStream.unpipe(content);
        fileStream.resume();
      }
    });
    fileStream.pipe(content);
    const handling = handle({ originalName: info.filename, mimeType: info.mimeType, content });
    handling.catch(() => content.destroy());
    state.handling = handling;
  });

  const parsing = pipeline(body, parser);
  const [parsed] = await Promise.allSettled([parsing]);
  // The handler's outcome wins when it had one: a complete file followed by trailing junk is stored.
  if (state.handling) {
    const [handled] = await Promise.allSettled([state.handling]);
    if (handled.status === 'fulfilled') return handled.value;
    if (handled.reason instanceof AppError || parsed.status === 'fulfilled') throw handled.reason;
  }
  if (parsed.status === 'rejected') {
    if (body.destroyed && (body as Readable & { complete?: boolean }).complete === false) {
      throw new AppError('BAD_REQUEST', 'Upload aborted by the client');
    }
    throw new AppError('BAD_REQUEST', 'Malformed multipart body');
  }
  throw new AppError('BAD_REQUEST', 'No file uploaded');
}
