// The content store's faults as every service that writes content reports them: the same
// status and message whether the bytes came in one request or resumably (docs/api.md).
import { AppError, DependencyUnavailableError } from '../utilities/errors';
import { ContentTooLargeError, StorageFullError, StorageUnavailableError } from '../storage/content-store';

/** The AppError a storage fault becomes; any other error is returned as it is. */
export function storageFaultAsAppError(error: unknown): unknown {
  if (error instanceof ContentTooLargeError) return new AppError('PAYLOAD_TOO_LARGE', 'File too large');
  if (error instanceof StorageFullError) return new AppError('INSUFFICIENT_STORAGE', 'Not enough storage space');
  // Logged once per outage by the door that answers it (ADR 0030), not once per request.
  if (error instanceof StorageUnavailableError) return new DependencyUnavailableError('storage', error);
  return error;
}

/** Runs one step of the content store, rejecting with its faults as AppErrors. */
export async function storageStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw storageFaultAsAppError(error);
  }
}
