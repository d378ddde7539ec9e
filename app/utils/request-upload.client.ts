// Files a guest sends to a file request from its page with JavaScript on (ADR 0048): each one
// is a resumable upload (tus 1.0, ADR 0019) to /r/<id>/uploads, in pieces, retried with growing
// pauses after a dropped connection, so a large file carries on where it stopped instead of
// starting again. The files go one after another, in the order chosen, as the page lists them.
// The browser keeps nothing of them (no localStorage): a guest's page is often a shared one.
// An upload holds its place in the request for as long as it lives (a day), so one given up on
// (refused half-way, the connection gone for good, the page left) is deleted at once: a request
// for one file is not left looking full.
import { Upload, type DetailedError } from 'tus-js-client';

/** Pieces of this size: each is a request, so a proxy's body limit never stops a large file. */
const CHUNK_BYTES = 50 * 1024 * 1024;
/** Waits between retries after a network failure: quick at first, then every half minute for a while. */
const RETRY_DELAYS_MS = [0, 1000, 2000, 4000, 8000, 15000, ...Array<number>(20).fill(30000)];

/** What the guest typed: it goes with every file, as the plain form's fields do. */
export interface GuestDetails {
  name: string;
  note: string;
}

/** A file as the request recorded it (its name cleaned by the server). */
export interface SentFile {
  originalName: string;
  size: number;
}

export interface RequestUploadCallbacks {
  onProgress(index: number, sent: number, total: number): void;
  /** A request failed and is tried again after `delayMs` (a lost connection, or a server that failed). */
  onRetrying(index: number, delayMs: number): void;
  onSent(index: number, file: SentFile): void;
  /** The server refused the file (`status`, its message), or the connection stayed lost (`status` null). */
  onRefused(index: number, status: number | null, message: string): void;
  /** Not tried: an earlier file's refusal holds for this one too (`message`). */
  onSkipped(index: number, message: string): void;
  onFinished(): void;
}

export interface RequestUploads {
  /** Stops the file under way, deleting what it sent, and sends no more (the page is left). */
  stop(): void;
}

/**
 * Refusals that hold for every file of the request, not just this one: unknown (404), closed,
 * expired or full (410), locked (401), a missing name (400), too many uploads from this
 * address (429). Too large (413) is about one file: a smaller one after it may still fit.
 */
function holdsForAll(status: number | null): boolean {
  return status !== 413;
}

/** Whether trying again can help: a lost connection, a failing server, or one still saving the last piece. */
function worthRetrying(status: number): boolean {
  return status === 0 || status >= 500 || status === 409 || status === 423;
}

/** The server's `{"error"}`, or words for an answer that is not the server's (the network). */
function refusalOf(error: Error | DetailedError): { status: number | null; message: string } {
  const response = (error as DetailedError).originalResponse;
  const status = response?.getStatus() || null;
  if (status === null) return { status, message: 'The connection was lost. Choose the file again to send it.' };
  try {
    const { error: message } = JSON.parse(response?.getBody() ?? '') as { error?: unknown };
    if (typeof message === 'string' && message !== '') return { status, message };
  } catch {
    // Not JSON: a proxy's page, say.
  }
  return { status, message: 'The file could not be sent. Please try again.' };
}

/** The file as the server recorded it, from the answer to the last request; the file itself when that says nothing. */
function sentFileOf(file: File, body: string): SentFile {
  try {
    const { files } = JSON.parse(body) as { files?: SentFile[] };
    if (files?.[0] && typeof files[0].originalName === 'string') return files[0];
  } catch {
    // An answer without a body (an empty file is finished by its creation): the file as chosen.
  }
  return { originalName: file.name, size: file.size };
}

/**
 * Deletes an upload that will not be carried on, so its place in the request is free again.
 * `keepalive`: it still goes when the page is being left.
 */
function letGo(upload: Upload | null): void {
  if (!upload?.url) return;
  void fetch(upload.url, { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' }, keepalive: true }).catch(
    () => undefined,
  );
}

/**
 * Sends `files` to the request `requestId` one after another. A file the server refuses is
 * reported and the next one goes, unless the refusal holds for every file: then the rest are
 * reported as not sent, with the same words, without asking the server again.
 */
export function sendToRequest(
  requestId: string,
  files: File[],
  guest: GuestDetails,
  callbacks: RequestUploadCallbacks,
): RequestUploads {
  let current: Upload | null = null;
  let stopped = false;

  const skipFrom = (first: number, message: string) => {
    for (let index = first; index < files.length; index++) callbacks.onSkipped(index, message);
    callbacks.onFinished();
  };

  const send = (index: number) => {
    if (stopped) return;
    if (index >= files.length) {
      current = null;
      callbacks.onFinished();
      return;
    }
    const file = files[index];
    const metadata: Record<string, string> = {
      filename: file.name,
      filetype: file.type || 'application/octet-stream',
    };
    // Empty fields are left out, as the plain form's are; the request's password never goes:
    // the browser already holds the request's grant cookie, given when the guest typed it.
    if (guest.name) metadata.name = guest.name;
    if (guest.note) metadata.note = guest.note;
    current = new Upload(file, {
      endpoint: `/r/${encodeURIComponent(requestId)}/uploads`,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS_MS,
      metadata,
      // The creation carries no bytes: one cut off would leave no address to carry on from, nor
      // to delete, and its place in the request held for a day (a request for one file, full).
      uploadDataDuringCreation: false,
      storeFingerprintForResuming: false,
      onProgress: (sent, total) => callbacks.onProgress(index, sent, total),
      onShouldRetry: (error: DetailedError, attempt) => {
        const retry = !stopped && worthRetrying(error.originalResponse?.getStatus() ?? 0);
        if (retry) callbacks.onRetrying(index, RETRY_DELAYS_MS[attempt] ?? 0);
        return retry;
      },
      onSuccess: ({ lastResponse }) => {
        current = null; // a file recorded: nothing to let go of any more
        callbacks.onSent(index, sentFileOf(file, lastResponse.getBody() ?? ''));
        send(index + 1);
      },
      onError: (error) => {
        if (stopped) return;
        letGo(current);
        current = null;
        const { status, message } = refusalOf(error);
        callbacks.onRefused(index, status, message);
        if (holdsForAll(status)) skipFrom(index + 1, message);
        else send(index + 1);
      },
    });
    current.start();
  };

  send(0);
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      void current?.abort();
      letGo(current);
    },
  };
}
