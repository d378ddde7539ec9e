// Which faults are dependency outages (ADR 0030): the database or the storage cannot be reached.
// Every door asks here, through OutageTracker.recognise (server/outages/tracker.ts), before it
// treats an error as its own fault: an outage is answered 503 with Retry-After, anything else
// stays a logged 500.
import { ConnectionException, LockWaitTimeoutException } from '@mikro-orm/core';
import { DependencyUnavailableError } from '../utilities/errors';
import { StorageUnavailableError } from '../storage/content-store';

/**
 * Error codes of a database that cannot be reached: SQLite's file that cannot be opened or stays
 * locked past its busy timeout, and PostgreSQL's shutting down, starting up or connection-class
 * (08xxx) SQLSTATEs. A socket's own codes count only for a connection being opened (`syscall`
 * connect or getaddrinfo): an ECONNRESET may as well be a client that went away mid-upload.
 */
const DATABASE_DOWN_CODES = new Set([
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  '57P01', // admin_shutdown: "terminating connection due to administrator command"
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or shutting down
]);
const CONNECT_SYSCALLS = new Set(['connect', 'getaddrinfo']);

/** What pg and knex say, without a code, when a connection breaks or none can be had. */
const DATABASE_DOWN_MESSAGES = [
  /Connection terminated/i,
  /Timeout acquiring a connection/i,
  /the database system is (starting up|shutting down)/i,
];

interface FaultFields {
  code?: unknown;
  syscall?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: unknown;
  /** Set by the AWS SDK on every error of a request to the bucket (its attempts, its HTTP status). */
  $metadata?: { httpStatusCode?: number };
}

/** The outage `error` stands for, or null when it is something else (a bug, a bad query). */
export function dependencyOutageOf(error: unknown): DependencyUnavailableError | null {
  if (error instanceof DependencyUnavailableError) return error;
  if (error instanceof StorageUnavailableError) return new DependencyUnavailableError('storage', error);
  if (isBucketUnreachable(error)) return new DependencyUnavailableError('storage', error);
  if (!isStatementRefused(error) && isDatabaseUnreachable(error))
    return new DependencyUnavailableError('database', error);
  return null;
}

/** No answer from the bucket, or a server-side one (500, 503 SlowDown): a 4xx is the request's own. */
function isBucketUnreachable(error: unknown): boolean {
  if (!isObject(error) || !isObject(error.$metadata)) return false;
  const status = error.$metadata.httpStatusCode;
  return status === undefined || status >= 500;
}

function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (error instanceof ConnectionException || error instanceof LockWaitTimeoutException) return true;
  if (!isObject(error) || depth > 2) return false;
  if (typeof error.code === 'string' && (DATABASE_DOWN_CODES.has(error.code) || /^08[0-9A-Z]{3}$/.test(error.code)))
    return true;
  if (typeof error.syscall === 'string' && CONNECT_SYSCALLS.has(error.syscall)) return true;
  if (error.name === 'KnexTimeoutError') return true;
  if (
    typeof error.message === 'string' &&
    DATABASE_DOWN_MESSAGES.some((pattern) => pattern.test(error.message as string))
  )
    return true;
  return isDatabaseUnreachable(error.cause, depth + 1);
}

/**
 * PostgreSQL's 08P01 (protocol violation) is in the connection class, but it answers a statement
 * the server could not read (a NUL in its text): that request's fault, never an outage for all.
 */
function isStatementRefused(error: unknown, depth = 0): boolean {
  if (!isObject(error) || depth > 2) return false;
  return error.code === '08P01' || isStatementRefused(error.cause, depth + 1);
}

function isObject(value: unknown): value is FaultFields {
  return typeof value === 'object' && value !== null;
}
