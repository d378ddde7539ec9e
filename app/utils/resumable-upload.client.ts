// Resumable uploads from the browser (tus, through tus-js-client; ADR 0019): the file goes in
// pieces to /api/v1/uploads, a dropped connection is retried with growing pauses, a pause
// keeps what was sent, and the browser remembers each unfinished upload (localStorage) so that
// choosing the same file again after a reload carries on where it stopped.
import { defaultOptions, Upload, type DetailedError, type PreviousUpload, type UrlStorage } from 'tus-js-client';

const UPLOADS_ENDPOINT = '/api/v1/uploads';
/** Pieces of this size: each is a request, so a proxy's body limit never stops a large file. */
const CHUNK_BYTES = 50 * 1024 * 1024;
/** Waits between retries after a network failure: quick at first, then every half minute for a while. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 4000, 8000, 15000, ...Array<number>(20).fill(30000)];

export interface ResumableCallbacks {
  onProgress(sent: number, total: number): void;
  /**
   * A request failed and is tried again after `delayMs`: the connection was lost (status 0),
   * the server failed (5xx), or it was still saving an earlier request (409, 423).
   */
  onRetrying(delayMs: number, status: number): void;
  /** Carrying on with an upload of this file begun earlier (before a reload). */
  onResumed(): void;
  /** The file's id, or null when the upload had finished before (its answer was lost). */
  onDone(fileId: string | null): void;
  onFailed(status: number | null, message: string): void;
}

export interface ResumableUpload {
  pause(): void;
  resume(): void;
}

/** The link options an upload was begun with, as far as the browser may remember them. */
const REMEMBERED_SETTINGS = ['expiresIn', 'expiresAt', 'maxDownloads'] as const;

/** What the browser keeps of an upload's metadata: never the password, only whether there was one (`locked`). */
function rememberedMetadata(metadata: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = { filename: metadata.filename ?? '', locked: metadata.password ? 'yes' : '' };
  for (const name of REMEMBERED_SETTINGS) kept[name] = metadata[name] ?? '';
  return kept;
}

/**
 * Whether an upload begun earlier carries the link options chosen now. Its settings were fixed
 * when it was created: carrying it on with other options would publish the file with the old
 * ones (a password typed now, silently dropped). A password can never be compared (it is not
 * kept): an upload with one is begun anew.
 */
function sameSettings(earlier: Record<string, string>, chosen: Record<string, string>): boolean {
  if (chosen.password || earlier.locked) return false;
  return REMEMBERED_SETTINGS.every((name) => (earlier[name] ?? '') === (chosen[name] ?? ''));
}

/**
 * The browser's memory of one user's unfinished uploads: the share settings are sent to the
 * server once, and a password is never kept in localStorage. The file name says what an
 * unfinished upload was; the other options decide whether it may be carried on. Each entry
 * names its owner (kept here only, never sent): the next person to log in on a shared browser
 * neither sees the file names nor tries to carry on an upload that is not theirs.
 */
function urlStorageOf(ownerId: string): UrlStorage {
  const mine = (uploads: PreviousUpload[]) => uploads.filter((upload) => upload.metadata.owner === ownerId);
  return {
    findAllUploads: async () => mine(await defaultOptions.urlStorage.findAllUploads()),
    findUploadsByFingerprint: async (fingerprint) =>
      mine(await defaultOptions.urlStorage.findUploadsByFingerprint(fingerprint)),
    removeUpload: (key) => defaultOptions.urlStorage.removeUpload(key),
    addUpload: (fingerprint, upload) =>
      defaultOptions.urlStorage.addUpload(fingerprint, {
        ...upload,
        metadata: { ...rememberedMetadata(upload.metadata), owner: ownerId },
      }),
  };
}

/** Names of the files whose uploads this user began in this browser and did not finish. */
export async function unfinishedUploads(ownerId: string): Promise<string[]> {
  const uploads: PreviousUpload[] = await urlStorageOf(ownerId)
    .findAllUploads()
    .catch(() => []);
  return uploads
    .filter((upload) => upload.uploadUrl?.includes(UPLOADS_ENDPOINT))
    .map((upload) => upload.metadata.filename || 'a file');
}

export function startResumableUpload(
  file: File,
  settings: Record<string, string>,
  ownerId: string,
  callbacks: ResumableCallbacks,
): ResumableUpload {
  const urlStorage = urlStorageOf(ownerId);
  let paused = false;
  const upload = new Upload(file, {
    endpoint: UPLOADS_ENDPOINT,
    chunkSize: CHUNK_BYTES,
    retryDelays: RETRY_DELAYS_MS,
    metadata: { filename: file.name, filetype: file.type || 'application/octet-stream', ...settings },
    urlStorage,
    removeFingerprintOnSuccess: true,
    onProgress: (sent, total) => callbacks.onProgress(sent, total),
    onShouldRetry: (error: DetailedError, attempt) => {
      const status = error.originalResponse?.getStatus() ?? 0;
      // The server said no (bad input, quota, logged out): trying again changes nothing.
      const retry = paused ? false : status === 0 || status >= 500 || status === 409 || status === 423;
      if (retry) callbacks.onRetrying(RETRY_DELAYS_MS[attempt] ?? 0, status);
      return retry;
    },
    onSuccess: ({ lastResponse }) => {
      try {
        const body = JSON.parse(lastResponse.getBody() || 'null') as { file?: { id?: string } } | null;
        callbacks.onDone(body?.file?.id ?? null);
      } catch {
        callbacks.onDone(null);
      }
    },
    onError: (error) => {
      const response = (error as DetailedError).originalResponse;
      let message = 'The upload failed. Please try again.';
      try {
        message = (JSON.parse(response?.getBody() ?? '') as { error?: string }).error ?? message;
      } catch {
        // Not an answer from the server (the network): the general message.
      }
      callbacks.onFailed(response?.getStatus() ?? null, message);
    },
  });
  upload
    .findPreviousUploads()
    .then((previous) => {
      const earlier = previous.find((candidate) => candidate.uploadUrl);
      if (earlier && sameSettings(earlier.metadata, settings)) {
        upload.resumeFromPreviousUpload(earlier);
        callbacks.onResumed();
      } else if (earlier?.uploadUrl) {
        // Other link options now: a new upload, and the earlier one is let go (its space freed).
        void Upload.terminate(earlier.uploadUrl).catch(() => undefined);
        void urlStorage.removeUpload(earlier.urlStorageKey).catch(() => undefined);
      }
      upload.start();
    })
    .catch(() => upload.start());
  return {
    pause() {
      paused = true;
      void upload.abort();
    },
    resume() {
      paused = false;
      upload.start();
    },
  };
}
