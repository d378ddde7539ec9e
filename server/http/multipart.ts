// Streams the first file of a multipart body to a handler, never holding it in memory.
// Used by the REST upload and the upload page alike. The traps: busboy decodes
// names as latin1 unless told; a file stream that is destroyed before its end stalls busboy
// for good; `pipe` leaves busboy hanging when the client aborts — hence `feed` below, and a
// PassThrough between busboy and the handler so a failing handler never stalls the parser.
import type { IncomingHttpHeaders } from 'node:http';
import { finished, PassThrough, type Readable, type Writable } from 'node:stream';
import busboy from 'busboy';
import { AppError } from '../utilities/errors';
import type { NewUpload } from '../services/files';

const MAX_BOUNDARY_LENGTH = 70;
/** The boundary parameter of a Content-Type: quoted (group 1, still escaped) or a bare token (group 2). */
const BOUNDARY_PARAM = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/i;

/** busboy's limits on text fields and on file parts (a browser sends an empty one for an input left empty). */
const MAX_FIELDS = 20;
const MAX_FILE_PARTS = 5;

/** Room for the multipart framing and a few small fields around one file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

export interface MultipartOptions {
  /** The largest file accepted; a larger one fails with PAYLOAD_TOO_LARGE. */
  maxFileBytes: number;
  /**
   * Text fields read before the file part and handed over as `settings` (the share settings).
   * One of them after the file part makes the upload a 400: the file is already under way.
   * A field left empty (a browser sends blank inputs too) counts as not sent.
   */
  fieldsBeforeFile?: readonly string[];
}

/**
 * Parses `body` and calls `handle` with the first part that carries a file with a name.
 * Resolves with what `handle` returns; rejects with an AppError for a body without a file
 * (400 "No file uploaded"), a malformed body or one past busboy's limits on parts (400), or a
 * declared length far past the limit (413).
 * An AppError of `handle` (a refusal) rejects as soon as it comes, before the body's end.
 */
export async function withFirstUploadedFile<T>(
  headers: IncomingHttpHeaders,
  body: Readable,
  options: MultipartOptions,
  handle: (upload: NewUpload) => Promise<T>,
): Promise<T> {
  refuseCompressedBody(headers, 'file');
  const declaredLength = Number(headers['content-length'] ?? NaN);
  if (declaredLength > options.maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  }
  // RFC 2046 §5.1.1: a boundary is 1 to 70 characters; busboy would take any length.
  const boundary = BOUNDARY_PARAM.exec(String(headers['content-type'] ?? ''));
  if (boundary && (boundary[1]?.replace(/\\(.)/g, '$1') ?? boundary[2]).length > MAX_BOUNDARY_LENGTH) {
    throw new AppError('BAD_REQUEST', 'Malformed multipart body: boundary longer than 70 characters');
  }
  // `parts` is past `files` + `fields`, so it is never the first limit a body reaches.
  const parser = multipartParser(headers, {
    fileSize: options.maxFileBytes + 1,
    files: MAX_FILE_PARTS,
    fields: MAX_FIELDS,
    parts: 30,
  });
  const expectedBytes = Number.isFinite(declaredLength) && declaredLength > 0 ? declaredLength : undefined;
  let parsing: Promise<void> | undefined;
  const reading: FirstFileReading<T> = watchForFirstFile(parser, options, (content, file, settings) =>
    handle({
      originalName: file.filename,
      mimeType: file.mimeType,
      content,
      settings,
      bodyAccepted: () => firstFileBodyAccepted(reading, parsing as Promise<void>, body),
      expectedBytes,
    }),
  );
  // Started before any 'file' event can fire (they come from this data).
  parsing = feed(body, parser);
  return await firstFileOutcome(reading, parsing, body);
}

/** What is known of a body while its first file is read (watchForFirstFile). */
interface FirstFileReading<T> {
  handling: Promise<T> | null;
  failed: boolean;
  /** The closing boundary was read: what follows is the epilogue, which MIME says to ignore. */
  closed: boolean;
  lateField: string | null;
  /** Why the whole body is refused, once known (a limit passed, a setting sent twice). */
  refusal: AppError | null;
  /** The handler's refusal (quota, size, settings, storage full), or the body's, known before its end. */
  refused: Promise<AppError>;
}

/**
 * Listens to the parser's parts: the share settings before the file, the first named file
 * (handed to `handleFile` with a copy of the settings), and the limits and faults that refuse
 * the body.
 */
function watchForFirstFile<T>(
  parser: busboy.Busboy,
  options: MultipartOptions,
  handleFile: (
    content: PassThrough,
    file: { filename: string; mimeType: string },
    settings: Record<string, string>,
  ) => Promise<T>,
): FirstFileReading<T> {
  let refuse: (error: AppError) => void = () => {};
  const reading: FirstFileReading<T> = {
    handling: null,
    failed: false,
    closed: false,
    lateField: null,
    refusal: null,
    refused: new Promise<AppError>((resolve) => (refuse = resolve)),
  };
  const settings: Record<string, string> = {};
  // The whole upload is refused. Before the file, at once, and the file is then never handled
  // (it would only be read to be dropped); a file under way hears it from `bodyAccepted`, so it
  // is not recorded.
  const refuseBody = (message: string) => () => {
    reading.refusal ??= new AppError('BAD_REQUEST', message);
    if (!reading.handling) refuse(reading.refusal);
  };
  // busboy skips the parts past a limit without a word: a share setting there would be lost, or
  // the file itself ("No file uploaded").
  parser.on('fieldsLimit', refuseBody(`Too many form fields: at most ${MAX_FIELDS} besides the file`));
  // File parts past the limit only matter while the file is still to come: once it is under way,
  // later file parts are dropped anyway (ADR 0026).
  const tooManyFileParts = refuseBody(`Too many file parts: at most ${MAX_FILE_PARTS} before the file`);
  parser.on('filesLimit', () => {
    if (!reading.handling) tooManyFileParts();
  });
  parser.on('field', (name, value) => {
    if (!options.fieldsBeforeFile?.includes(name)) return;
    if (reading.handling) reading.lateField ??= name;
    // Sent twice with two values: which one was meant? (A resumable upload's metadata refuses it too.)
    else if (value !== '' && settings[name] !== undefined && settings[name] !== value)
      refuseBody(`The ${name} field is sent twice`)();
    else if (value !== '') settings[name] = value;
  });
  // busboy may still emit a file after its first error (the rest of the chunk it was parsing):
  // that file's stream never ends, so a handler given it would wait forever.
  parser.on('error', () => {
    reading.failed = true;
  });
  parser.on('file', (_field, fileStream, info) => {
    // busboy destroys the current file stream with its own error when the body turns out
    // malformed; an 'error' nobody listens to would bring the whole process down.
    fileStream.on('error', () => {});
    // busboy 1.6 also parses parts that follow the closing boundary in the same chunk, and then
    // waits forever for such a file to end (its parser is already switched off): the request
    // would never be answered. Parts after the end make the body malformed.
    if ((parser as unknown as { _complete?: boolean })._complete) {
      reading.failed = true;
      reading.closed = true;
      parser.destroy(new Error('Part after the closing boundary'));
      return;
    }
    // Only the first named file is handled (the upload is the first part that carries a file,
    // ADR 0026); later ones, empty file inputs (what a browser sends for an input left empty)
    // and anything after a parse error or past a limit are read and dropped.
    if (reading.failed || parser.destroyed || reading.handling || reading.refusal || !info.filename) {
      fileStream.resume();
      return;
    }
    const content = contentOf(fileStream);
    const handling = handleFile(content, { filename: info.filename, mimeType: info.mimeType }, { ...settings });
    handling.catch((error: unknown) => {
      content.destroy();
      if (error instanceof AppError) refuse(error);
    });
    reading.handling = handling;
  });
  return reading;
}

/**
 * The file's `bodyAccepted`: resolves once the rest of the body was read (later file parts
 * dropped); rejects with an AppError when a share setting came after the file, the body went
 * past a limit, the client went away before the end, or the body broke before its closing
 * boundary (malformed multipart is a 400 and keeps nothing, even after a complete file part).
 * An epilogue after the closing boundary is ignored, as MIME says: that file is stored.
 */
async function firstFileBodyAccepted(
  reading: FirstFileReading<unknown>,
  parsing: Promise<void>,
  body: Readable,
): Promise<void> {
  const [outcome] = await Promise.allSettled([parsing]);
  if (reading.lateField)
    throw new AppError('BAD_REQUEST', `The ${reading.lateField} field must come before the file part`);
  if (reading.refusal) throw reading.refusal;
  if (outcome.status === 'rejected' && clientWentAway(outcome.reason, body))
    throw new AppError('BAD_REQUEST', 'Upload aborted by the client');
  if (outcome.status === 'rejected' && !reading.closed) throw new AppError('BAD_REQUEST', 'Malformed multipart body');
}

/** What withFirstUploadedFile resolves or rejects with, once the body and its file are done. */
async function firstFileOutcome<T>(reading: FirstFileReading<T>, parsing: Promise<void>, body: Readable): Promise<T> {
  // A refusal is answered at once, not once the rest of the body has been read and dropped (a
  // file over the quota could be gigabytes): the caller answers and closes the connection
  // after a while (lingering-close.ts), which ends the parsing.
  const early = await Promise.race([parsing.then(noRefusal, noRefusal), reading.refused]);
  if (early) {
    parsing.catch(() => undefined);
    throw early;
  }
  const [parsed] = await Promise.allSettled([parsing]);
  // The handler's outcome wins when it had one: it heard of a malformed body from `bodyAccepted`.
  if (reading.handling) {
    const [handled] = await Promise.allSettled([reading.handling]);
    if (handled.status === 'fulfilled') return handled.value;
    if (handled.reason instanceof AppError || parsed.status === 'fulfilled') throw handled.reason;
  }
  if (parsed.status === 'rejected') {
    // A client that went away shows as a reset; a parser error (no code) also destroys the body,
    // but the client is still there and sent something malformed.
    if (clientWentAway(parsed.reason, body)) throw new AppError('BAD_REQUEST', 'Upload aborted by the client');
    throw new AppError('BAD_REQUEST', 'Malformed multipart body');
  }
  throw reading.refusal ?? new AppError('BAD_REQUEST', 'No file uploaded');
}

/** A compressed body would be stored compressed, under the uploader's name: refuse it. */
function refuseCompressedBody(headers: IncomingHttpHeaders, what: 'file' | 'files'): void {
  const encoding = String(headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    throw new AppError(
      'BAD_REQUEST',
      `Content-Encoding "${encoding.slice(0, 40)}" is not supported: send the ${what} uncompressed`,
    );
  }
}

/** busboy for an upload body, with its limits on parts; a body that is no multipart is a 400. */
function multipartParser(
  headers: IncomingHttpHeaders,
  limits: { fileSize: number; files: number; fields: number; parts: number },
): busboy.Busboy {
  try {
    return busboy({
      headers,
      defParamCharset: 'utf8',
      // The name as the uploader sent it (the file object's originalName). busboy would cut it to
      // its last path segment, and turn ".." into "" (then refused as "No file uploaded").
      // The stored name never comes from it beyond a letters-and-digits extension.
      preservePath: true,
      // `fileSize` is one byte over the limit: busboy flags a file of exactly `fileSize` bytes as truncated.
      limits: { ...limits, fieldSize: 64 * 1024, headerPairs: 50 },
    });
  } catch {
    throw new AppError('BAD_REQUEST', 'Expected a multipart/form-data body');
  }
}

const noRefusal = (): null => null;

/**
 * A file part's bytes for its handler, through a PassThrough so that a failing handler never
 * stalls the parser. The handler may start reading only after an await (it checks the share
 * settings first): a body that breaks before then must not be an unhandled 'error'; the reader
 * still sees the stream destroyed, with its error, when it starts. It holds one socket read's
 * worth ahead (64 KiB): what waits in a stage between parser and disk is memory (ADR 0053).
 */
function contentOf(fileStream: Readable): PassThrough {
  const content = new PassThrough({ highWaterMark: 64 * 1024 });
  content.on('error', () => {});
  fileStream.on('error', (error) => content.destroy(error));
  content.on('close', () => {
    // The handler gave up early: keep reading so busboy can reach the end of the body.
    if (!fileStream.readableEnded) {
      fileStream.unpipe(content);
      fileStream.resume();
    }
  });
  fileStream.pipe(content);
  return content;
}

/**
 * Writes the body into the parser. Unlike `pipeline`, a parser that fails (a malformed body)
 * leaves the body alone: destroying the request would drop its connection before the 400 is
 * out. The rest of the body is read and dropped instead (the API's answer then closes the
 * connection after a while: lingering-close.ts). A body that fails (the client went away)
 * destroys the parser, so that it never waits for the rest.
 */
function feed(body: Readable, parser: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    finished(body, { writable: false }, (error) => {
      if (error) parser.destroy(error);
    });
    finished(parser, (error) => {
      if (!error) return resolve();
      body.unpipe(parser);
      if (!body.destroyed) body.resume();
      reject(error);
    });
    body.pipe(parser);
  });
}

/** A client that went away shows as a reset of a body that never completed. */
function clientWentAway(reason: unknown, body: Readable): boolean {
  const code = (reason as NodeJS.ErrnoException | undefined)?.code;
  const reset = code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
  return reset && body.destroyed && (body as Readable & { complete?: boolean }).complete === false;
}

/** The most file parts one request may carry into a collection (each a file of its own). */
const MAX_FILES_PER_REQUEST = 1_000;

/** One file part of a body with several: the upload, and the `path` field sent just before it. */
export interface UploadPart {
  upload: NewUpload;
  /** The `path` field that came right before this file part, if any. */
  path: string | undefined;
}

/**
 * Parses `body` and calls `handle` for each part that carries a named file, in order, as each
 * arrives (streamed, never whole in memory). Text fields named in `fieldsBeforeFile` must come
 * before the first file; a `path` field applies to the file part after it. Resolves with what
 * each `handle` returned, in order, once the whole body was read and every file handled.
 *
 * All or nothing: when the body turns out bad (malformed, past a limit, the client gone), or one
 * handler refuses its file (too large, over the quota), every file handled so far is handed to
 * `undo` and the whole request is refused with that reason; no file part (400) is refused too.
 */
export async function withEachUploadedFile<T>(
  headers: IncomingHttpHeaders,
  body: Readable,
  options: MultipartOptions,
  handle: (part: UploadPart) => Promise<T>,
  undo: (handled: T) => Promise<void>,
): Promise<{ results: T[]; settings: Record<string, string> }> {
  refuseCompressedBody(headers, 'files');
  const parser = multipartParser(headers, {
    fileSize: options.maxFileBytes + 1,
    files: MAX_FILES_PER_REQUEST,
    fields: MAX_FIELDS + MAX_FILES_PER_REQUEST,
    parts: MAX_FIELDS + 2 * MAX_FILES_PER_REQUEST,
  });
  const reading = watchEachFile(parser, options, handle);
  const parsing = feed(body, parser);
  const results = await eachFileOutcome(reading, parsing, body, undo);
  return { results, settings: reading.settings };
}

/** What is known of a body while its files are read (watchEachFile). */
interface EachFileReading<T> {
  settings: Record<string, string>;
  /** Each file part's handler, in order. */
  handling: Array<Promise<T>>;
  /** Each file part's bytes as its handler reads them. */
  contents: PassThrough[];
  /** Why the whole body is refused, once known. */
  refusal(): AppError | null;
  refused: Promise<AppError>;
}

/**
 * Listens to the parser's parts: the share settings before the first file, each file's `path`
 * field, each named file (handed to `handle` as it arrives), and the limits that refuse the body.
 */
function watchEachFile<T>(
  parser: busboy.Busboy,
  options: MultipartOptions,
  handle: (part: UploadPart) => Promise<T>,
): EachFileReading<T> {
  let refusal: AppError | null = null;
  let refuseNow: (error: AppError) => void = () => {};
  const reading: EachFileReading<T> = {
    settings: {},
    handling: [],
    contents: [],
    refusal: () => refusal,
    refused: new Promise<AppError>((resolve) => (refuseNow = resolve)),
  };
  const { settings, handling, contents } = reading;
  let nextPath: string | undefined;
  const refuse = (error: AppError) => {
    refusal ??= error;
    refuseNow(refusal);
  };
  parser.on('fieldsLimit', () => refuse(new AppError('BAD_REQUEST', 'Too many form fields')));
  parser.on('filesLimit', () =>
    refuse(new AppError('BAD_REQUEST', `Too many files: at most ${MAX_FILES_PER_REQUEST} in one request`)),
  );
  parser.on('error', () => undefined);
  parser.on('field', (name, value) => {
    if (name === 'path') nextPath = value === '' ? undefined : value;
    else if (options.fieldsBeforeFile?.includes(name)) {
      if (handling.length > 0) refuse(new AppError('BAD_REQUEST', `The ${name} field must come before the file part`));
      else if (value !== '') settings[name] = value;
    }
  });
  parser.on('file', (_field, fileStream, info) => {
    fileStream.on('error', () => {});
    const path = nextPath;
    nextPath = undefined;
    if (refusal || parser.destroyed || !info.filename) {
      fileStream.resume();
      return;
    }
    const content = contentOf(fileStream);
    contents.push(content);
    const partEnded = wholePartEnded(fileStream);
    const handled = handle({
      upload: {
        originalName: info.filename,
        mimeType: info.mimeType,
        content,
        settings: { ...settings },
        bodyAccepted: () => partEnded,
      },
      path,
    });
    handled.catch((error: unknown) => {
      content.destroy();
      if (error instanceof AppError) refuse(error);
    });
    handling.push(handled);
  });
  return reading;
}

/** A file part is good once it ended whole (not cut by the size limit, not broken off). */
function wholePartEnded(fileStream: Readable): Promise<void> {
  const partEnded = new Promise<void>((resolve, reject) => {
    fileStream.on('end', () =>
      (fileStream as Readable & { truncated?: boolean }).truncated
        ? reject(new AppError('PAYLOAD_TOO_LARGE', 'File too large'))
        : resolve(),
    );
    fileStream.on('error', () => reject(new AppError('BAD_REQUEST', 'Malformed multipart body')));
  });
  partEnded.catch(() => undefined);
  return partEnded;
}

/**
 * Each handler's result, in order, once the body was read and every file handled; or, all or
 * nothing, every file handled so far handed to `undo` and the body's or a handler's refusal thrown.
 */
async function eachFileOutcome<T>(
  reading: EachFileReading<T>,
  parsing: Promise<void>,
  body: Readable,
  undo: (handled: T) => Promise<void>,
): Promise<T[]> {
  const { handling, contents } = reading;
  // A refusal is answered at once, as a single file's is, not once the rest of the body has been
  // read and dropped: the caller answers and closes the connection after a while
  // (lingering-close.ts), which ends the parsing. The later parts are not handled (see 'file').
  const early = await Promise.race([parsing.then(noRefusal, noRefusal), reading.refused]);
  if (early) {
    parsing.catch(() => undefined);
    // A file still under way is not waited for: it fails (and keeps nothing) at once.
    for (const content of contents) if (!content.writableEnded) content.destroy();
    for (const outcome of await Promise.allSettled(handling))
      if (outcome.status === 'fulfilled') await undo(outcome.value);
    throw early;
  }
  const [parsed] = await Promise.allSettled([parsing]);
  const outcomes = await Promise.allSettled(handling);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  const problem: unknown =
    reading.refusal() ??
    (parsed.status === 'rejected'
      ? new AppError(
          'BAD_REQUEST',
          clientWentAway(parsed.reason, body) ? 'Upload aborted by the client' : 'Malformed multipart body',
        )
      : failed?.status === 'rejected'
        ? failed.reason
        : handling.length === 0
          ? new AppError('BAD_REQUEST', 'No file uploaded')
          : null);
  if (problem) {
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') await undo(outcome.value);
    throw problem;
  }
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
