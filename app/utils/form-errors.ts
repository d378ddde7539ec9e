// What the pages' forms say when the server refuses them. The services' messages are written
// for the API (CONTRACT.md §4: `{"error":"File too large"}`); a page says the same in the words
// of the form a person sees. Pure: the upload form uses it in the browser too (tus answers).
import { formatBytes } from './format';

/** The API's message for a file over MAX_UPLOAD_BYTES (CONTRACT.md §4, docs/api.md). */
const API_FILE_TOO_LARGE = 'File too large';

/** A file over the server's limit, with the limit in human units. */
export function tooLargeMessage(maxUploadBytes: number): string {
  return `This file is too large. Files on this server can be up to ${formatBytes(maxUploadBytes)}.`;
}

/** An upload's refusal, as the upload page says it. */
export function uploadErrorInWords(status: number | null, message: string, maxUploadBytes: number): string {
  if (status === 413 && message === API_FILE_TOO_LARGE) return tooLargeMessage(maxUploadBytes);
  return message;
}
