import type { Request, Response } from 'express';
import { isAppError } from '../errors';
import { closeAfterDiscardingBody } from '../http/lingering-close';

/**
 * The one mapping from errors to API responses: an AppError becomes its status and message,
 * anything else is logged and becomes a bare 500 — never a stack trace (docs/api.md).
 */
export function sendJsonError(res: Response, error: unknown, req?: Request): void {
  if (isAppError(error)) {
    if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    // A refused upload may leave body bytes unread: this connection serves no other request.
    if (req && !req.complete) closeAfterDiscardingBody(req, res);
    if (!res.headersSent) res.status(error.status).json({ error: error.message });
    return;
  }
  res.locals.ctx?.log.error({ err: error, path: req?.path }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(500).json({ error: 'Internal server error' });
}
