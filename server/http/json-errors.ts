import type { IncomingMessage } from 'node:http';
import { isAppError } from '../utilities/errors';
import { sendJson } from './json-response';
import { closeAfterDiscardingBody } from './lingering-close';
import type { ResponseWithLocals } from './request-context';

/**
 * The one mapping from errors to API responses: an AppError (a dependency outage among them)
 * becomes its status and message, anything else is logged and becomes a bare 500 — never a
 * stack trace (docs/api.md).
 * On Node's own request and response, so that the upload's fast path answers the same way.
 */
export function sendJsonError(
  res: ResponseWithLocals,
  error: unknown,
  req?: IncomingMessage & { originalUrl?: string },
): void {
  // A database or storage outage is 503 with Retry-After, logged once per outage (ADR 0030).
  error = res.locals?.ctx?.outages.recognise(error) ?? error;
  if (isAppError(error)) {
    if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    // A refused upload may leave body bytes unread: this connection serves no other request.
    if (req && !req.complete) closeAfterDiscardingBody(req, res);
    if (!res.headersSent) sendJson(res, error.status, { error: error.message });
    return;
  }
  const path = req ? (req.originalUrl ?? req.url ?? '').split('?')[0] : undefined;
  res.locals?.ctx?.log.error({ err: error, path }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, 500, { error: 'Internal server error' });
}
