// One error type for every rule a service enforces; each door maps the code once.
export const ERROR_STATUS = {
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
  /** Something the service depends on (the storage) is down for now: try again later. */
  SERVICE_UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds after which a retry may succeed (TOO_MANY_REQUESTS). */
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
