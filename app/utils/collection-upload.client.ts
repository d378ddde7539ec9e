// Several files, or a folder, from the upload page as one collection (ADR 0039): each file goes
// as a resumable upload (tus, /api/v1/uploads), one after another. A collection holds at least
// one file, so the first file to arrive makes it (POST /api/v1/collections, with the form's title
// and link options); every other file names it in its upload's metadata, with its path, and
// joins it once its last byte is in. One at a time, the files join in the order chosen: two
// joining at the same moment could both take the same place at the collection's end. A file that
// fails after the retries is reported and the others carry on: what arrived stays in the
// collection.
import { Upload, type DetailedError } from 'tus-js-client';

const UPLOADS_ENDPOINT = '/api/v1/uploads';
const COLLECTIONS_ENDPOINT = '/api/v1/collections';
/** As for one file: pieces of this size, each a request a proxy's body limit lets through. */
const CHUNK_BYTES = 50 * 1024 * 1024;
/** As for one file: quick retries at first, then every half minute for a while. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 4000, 8000, 15000, ...Array<number>(20).fill(30000)];
/** A refusal of the link options, or of the person: every other file would be refused alike. */
const REFUSES_ALL = /^(expiresAt|expiresIn|maxDownloads|password)\b/;

export interface CollectionFile {
  file: File;
  path: string;
}

export interface CollectionUploadOptions {
  /** The collection's title: the form's, else its folder's name, else "N files" (server/collection-titles.ts). */
  title: string;
  /** The form's link options (expiresIn, maxDownloads, password), for the collection and each file. */
  settings: Record<string, string>;
}

export interface CollectionUploadCallbacks {
  onFileProgress(index: number, sent: number): void;
  /** A request failed and is tried again (the connection was lost, or the server was busy). */
  onFileRetrying(index: number): void;
  onFileDone(index: number): void;
  /** The file is left out after the retries: `status` is the server's answer (null: the network). */
  onFileFailed(index: number, status: number | null, message: string): void;
  /** The collection exists: the files that arrive from now on join it. */
  onCollection(id: string): void;
  /**
   * Every file has been dealt with: `collectionId` is null when none arrived, or the collection
   * could not be made (`problem` says why).
   */
  onFinished(collectionId: string | null, problem: { status: number | null; message: string } | null): void;
}

export interface CollectionUpload {
  pause(): void;
  resume(): void;
}

interface Answer {
  status: number | null;
  message: string;
}

/** What a failed tus request or API call said, as `{ status, message }`. */
function answerOf(status: number | null, body: string | undefined): Answer {
  let message = 'The upload failed. Please try again.';
  try {
    message = (JSON.parse(body ?? '') as { error?: string }).error ?? message;
  } catch {
    // Not an answer from the server (the network): the general message.
  }
  return { status, message };
}

/** A JSON request of the signed-in page to the API (its cookie; the page's own origin). */
async function sendJson(
  method: 'POST' | 'PATCH',
  url: string,
  body: unknown,
): Promise<{ ok: boolean; status: number; text: string }> {
  const response = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { ok: response.ok, status: response.status, text: await response.text() };
}

export function startCollectionUpload(
  files: CollectionFile[],
  options: CollectionUploadOptions,
  callbacks: CollectionUploadCallbacks,
): CollectionUpload {
  const running = new Set<Upload>();
  let paused = false;
  let collectionId: string | null = null;
  /** Why no more files are sent, once a refusal would be the same for all of them. */
  let stopped: Answer | null = null;
  /** Once the collection exists, its end: every later file's link ends no later than the collection's. */
  let fileSettings = options.settings;

  /** Sends one file; resolves with its new id, or null once it failed (reported). */
  const send = (index: number, metadata: Record<string, string>): Promise<string | null> =>
    new Promise((resolve) => {
      const { file } = files[index];
      const upload = new Upload(file, {
        endpoint: UPLOADS_ENDPOINT,
        chunkSize: CHUNK_BYTES,
        retryDelays: RETRY_DELAYS_MS,
        metadata: { filename: file.name, filetype: file.type || 'application/octet-stream', ...metadata },
        // A collection's files are sent in this page only: nothing to carry on after a reload.
        storeFingerprintForResuming: false,
        onProgress: (sent) => callbacks.onFileProgress(index, sent),
        onShouldRetry: (error: DetailedError) => {
          const status = error.originalResponse?.getStatus() ?? 0;
          const retry = paused ? false : status === 0 || status >= 500 || status === 409 || status === 423;
          if (retry) callbacks.onFileRetrying(index);
          return retry;
        },
        onSuccess: ({ lastResponse }) => {
          running.delete(upload);
          let fileId: string | null = null;
          try {
            fileId =
              (JSON.parse(lastResponse.getBody() || 'null') as { file?: { id?: string } } | null)?.file?.id ?? null;
          } catch {
            // An answer lost on the way (the upload had finished before): no id to go on.
          }
          // A file that joins the collection is in it, id or not; the file the collection is made
          // of must be named by its id.
          if (fileId === null && !metadata.collection)
            callbacks.onFileFailed(index, null, 'It arrived, but not in the collection: it is among your files');
          else callbacks.onFileDone(index);
          resolve(fileId);
        },
        onError: (error) => {
          // A pause aborts the upload: it waits in `running` for the resume.
          if (paused) return;
          running.delete(upload);
          const response = (error as DetailedError).originalResponse;
          const { status, message } = answerOf(response?.getStatus() ?? null, response?.getBody());
          callbacks.onFileFailed(index, status, message);
          if (status === 401 || status === 403 || (status === 400 && REFUSES_ALL.test(message)))
            stopped ??= { status, message };
          resolve(null);
        },
      });
      running.add(upload);
      if (!paused) upload.start();
    });

  /** Makes the collection of its first file; the problem when the server refuses it. */
  const makeCollection = async (index: number, fileId: string): Promise<Answer | null> => {
    const created = await sendJson('POST', COLLECTIONS_ENDPOINT, {
      ...options.settings,
      title: options.title,
      files: [{ id: fileId, path: files[index].path }],
    }).catch(() => null);
    if (!created?.ok) return answerOf(created?.status ?? null, created?.text);
    const collection = (JSON.parse(created.text) as { collection: { id: string; expiresAt: string | null } })
      .collection;
    collectionId = collection.id;
    if (collection.expiresAt) {
      const { expiresIn: _counted, ...rest } = options.settings;
      fileSettings = { ...rest, expiresAt: collection.expiresAt };
    }
    callbacks.onCollection(collection.id);
    return null;
  };

  const run = async () => {
    let next = 0;
    // Until one file arrives and the collection is made of it.
    while (collectionId === null && stopped === null && next < files.length) {
      const index = next++;
      const fileId = await send(index, options.settings);
      if (fileId === null) continue;
      const problem = await makeCollection(index, fileId);
      if (problem) return callbacks.onFinished(null, problem);
    }
    if (collectionId === null) return callbacks.onFinished(null, stopped);
    while (stopped === null && next < files.length) {
      const index = next++;
      await send(index, { ...fileSettings, collection: collectionId, path: files[index].path });
    }
    callbacks.onFinished(collectionId, stopped);
  };
  void run();

  return {
    pause() {
      paused = true;
      for (const upload of running) void upload.abort();
    },
    resume() {
      paused = false;
      for (const upload of running) upload.start();
    },
  };
}

/** Renames a collection whose title counted files that did not all arrive. */
export async function retitleCollection(id: string, title: string): Promise<void> {
  await sendJson('PATCH', `${COLLECTIONS_ENDPOINT}/${encodeURIComponent(id)}`, { title }).catch(() => undefined);
}
