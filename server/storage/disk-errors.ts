import { StorageFullError, StorageUnavailableError } from './content-store';

/** Errors that mean the folder refuses writes (permissions, a read-only mount, a folder gone). */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR']);

/** A disk fault as the store contract names it (a full disk, a folder that refuses writes); anything else as it is. */
export function asStorageError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new StorageFullError('No space left on the device');
  if (code && NOT_WRITABLE.has(code)) return new StorageUnavailableError(`Upload folder not writable (${code})`);
  return error;
}
