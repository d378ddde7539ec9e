// One error type for every rule a service enforces; each door maps the code once.
import { tryAgainIn } from './wait-in-words';

const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  /** The share link existed and has expired or used up its downloads. */
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  /** Another request is working on the same thing (a resumable upload): retry shortly. */
  LOCKED: 423,
  TOO_MANY_REQUESTS: 429,
  /** The database or the storage cannot be reached for now: try again after Retry-After (ADR 0030). */
  DEPENDENCY_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds after which a retry may succeed (TOO_MANY_REQUESTS, DEPENDENCY_UNAVAILABLE): the Retry-After header. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** What the service cannot work without, when it cannot be reached. */
export type Dependency = 'database' | 'storage';

/** How long a client is asked to wait before trying again during an outage (Retry-After). */
export const OUTAGE_RETRY_AFTER_SECONDS = 10;

const OUTAGE_MESSAGES: Record<Dependency, string> = {
  database: `The database is unavailable. ${tryAgainIn(OUTAGE_RETRY_AFTER_SECONDS)}`,
  storage: `Storage is unavailable. ${tryAgainIn(OUTAGE_RETRY_AFTER_SECONDS)}`,
};

/**
 * A request refused because the database or the storage cannot be reached (ADR 0030): 503 with
 * Retry-After on every door. Made from the fault by `dependencyOutageOf` (server/outages/classification.ts);
 * the fault itself is kept for the outage's one log line.
 */
export class DependencyUnavailableError extends AppError {
  override name = 'DependencyUnavailableError';
  constructor(
    readonly dependency: Dependency,
    readonly fault?: unknown,
  ) {
    super('DEPENDENCY_UNAVAILABLE', OUTAGE_MESSAGES[dependency], OUTAGE_RETRY_AFTER_SECONDS);
  }
}
