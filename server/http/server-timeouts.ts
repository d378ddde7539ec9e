import type { Server } from 'node:http';
import type { Config } from '../config';

/** Headers must arrive within this long (slowloris). */
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * The timeouts of the HTTP server, for production and the tests alike:
 * - `requestTimeout` (REQUEST_TIMEOUT_MS, 0 = none): the whole request; Node's 300 s default
 *   would cut large uploads on slow links.
 * - `timeout` (REQUEST_IDLE_TIMEOUT_MS): the connection's idleness. A body that stops coming
 *   (or a client that stops reading) is closed after it; one that keeps moving never is. The
 *   upload in progress then fails as aborted, and leaves nothing behind.
 */
export function applyServerTimeouts(
  server: Server,
  config: Pick<Config, 'requestTimeoutMs' | 'requestIdleTimeoutMs'>,
): void {
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Without a 'timeout' listener, Node destroys the idle socket itself.
  server.timeout = config.requestIdleTimeoutMs;
}
