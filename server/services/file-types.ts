// A file's type, decided the same way for every upload (multipart or resumable): what the client
// sent, cleaned, or else what its name's extension stands for.
import { lookup } from 'mime-types';

const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const UNKNOWN_TYPE = 'application/octet-stream';

/** The declared type when it is a well-formed type/subtype; octet-stream otherwise. */
function cleanMimeType(mimeType: string): string {
  const bare = mimeType.split(';')[0].trim().toLowerCase();
  return MIME_TYPE.test(bare) ? bare : UNKNOWN_TYPE;
}

/**
 * The type a file is stored with: the one the client sent (cleaned), or, when it sent none, the
 * one the `mime-types` table gives its name's extension, or octet-stream.
 */
export function fileTypeFor(name: string, declared: string | null | undefined): string {
  if (declared && declared.trim() !== '') return cleanMimeType(declared);
  return lookup(name) || UNKNOWN_TYPE;
}
