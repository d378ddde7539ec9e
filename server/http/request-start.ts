// What every request gets first, whichever door answers it (ADR 0073): the headers every
// response carries, the request's id, its service context and its log line. Express calls it
// as its first middleware (app.ts); the fast paths ahead of Express call it before anything
// else (../doors/fast-paths.ts). Something every request must get is added here, and so reaches
// all of them; tests/hardening/request-start.test.ts compares the answers of both ways.
//
// Who is asking is not part of it: the browser assets and /healthz are served without reading the
// session (no query per asset, and the outage page keeps its stylesheet while the database is
// down), and the API judges a token where it finds one. The session is read after the cross-site
// guard (session.ts), by Express and by each fast path.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { AppDeps, ServiceContext } from '../context';
import { beginRequest, type ResponseWithLocals } from './request-context';
import { setSecurityHeaders } from './security-headers';

/**
 * Starts the request: security headers, its id, context and log line, all kept in `res.locals`
 * where the Express middleware and routes find them. Returns its service context.
 */
export function startRequest(
  deps: AppDeps,
  req: IncomingMessage,
  res: ResponseWithLocals,
  clientAddress: string | null,
): ServiceContext {
  const cspNonce = setSecurityHeaders(res, deps.config);
  const ctx = beginRequest(deps, req, res, clientAddress);
  (res.locals as Partial<Express.Locals>).cspNonce = cspNonce;
  return ctx;
}

/** startRequest as Express's first middleware. */
export function requestStart(deps: AppDeps) {
  return (req: Request, res: Response, next: NextFunction) => {
    // Started already by the raw link's fast path, which handed the request on.
    if (!res.locals.ctx) startRequest(deps, req, res, req.ip ?? null);
    next();
  };
}
