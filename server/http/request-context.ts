// Gives each request its own service context (a forked EntityManager), a request id and
// one structured log line when the response is done (never a secret in it).
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { createServiceContext, type AppDeps, type ServiceContext } from '../context';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      ctx: ServiceContext;
      requestId: string;
      /** The session token the request carried, if any (logout revokes it). */
      sessionToken: string | null;
    }
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** Paths polled by orchestrators: logged at debug so they never flood the info log. */
const QUIET_PATHS = new Set(['/healthz']);

export function requestContext(deps: AppDeps) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const log = deps.log.child({ reqId: requestId });
    res.locals.requestId = requestId;
    const ctx = createServiceContext(deps, log);
    ctx.clientAddress = req.ip ?? null;
    ctx.userAgent = req.get('user-agent') ?? null;
    res.locals.ctx = ctx;
    res.locals.sessionToken = null;
    res.setHeader('X-Request-Id', requestId);

    const started = process.hrtime.bigint();
    res.on('close', () => {
      const entry = {
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.headersSent ? res.statusCode : 499,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        userId: res.locals.ctx.user?.id,
      };
      if (QUIET_PATHS.has(req.path)) log.debug(entry, 'request');
      else log.info(entry, 'request');
    });
    next();
  };
}
