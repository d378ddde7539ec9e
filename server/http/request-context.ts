// Gives each request its own service context (a forked EntityManager), a request id and
// one structured log line when the response is done (never a secret in it).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServiceContext, type AppDeps, type ServiceContext } from '../context';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      ctx: ServiceContext;
      requestId: string;
      /** The session token the request carried, if any (logout revokes it). */
      sessionToken: string | null;
      /** Set once the cookie was read (the raw file's fast path may have done it already). */
      sessionRecognised?: boolean;
    }
  }
}

/** A response that may already carry what the middleware give it (Express keeps `locals` it finds). */
export type ResponseWithLocals = ServerResponse & { locals?: Partial<Express.Locals> };

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** Paths polled by orchestrators: logged at debug so they never flood the info log. */
const QUIET_PATHS = new Set(['/healthz']);

/**
 * Starts a request's context: its id (the caller's X-Request-Id when it is a safe one), its
 * logger, the service context, and the log line written when the response closes. Keeps them
 * in `res.locals`, where the Express middleware find them.
 */
export function beginRequest(
  deps: AppDeps,
  req: IncomingMessage,
  res: ResponseWithLocals,
  clientAddress: string | null,
): ServiceContext {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const log = deps.log.child({ reqId: requestId });
  const ctx = createServiceContext(deps, log);
  ctx.clientAddress = clientAddress;
  ctx.userAgent = req.headers['user-agent'] ?? null;
  res.locals = Object.assign(res.locals ?? Object.create(null), { ctx, requestId, sessionToken: null });
  res.setHeader('X-Request-Id', requestId);

  const started = process.hrtime.bigint();
  // Taken now: inside a mounted router Express rewrites req.url (only its own request keeps originalUrl).
  const path = (req.url ?? '/').split('?')[0];
  res.on('close', () => {
    const entry = {
      method: req.method,
      path,
      status: res.headersSent ? res.statusCode : 499,
      durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      userId: ctx.user?.id,
    };
    if (QUIET_PATHS.has(path)) log.debug(entry, 'request');
    else log.info(entry, 'request');
  });
  return ctx;
}
