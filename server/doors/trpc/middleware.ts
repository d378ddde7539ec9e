import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../utilities/errors';
import { linkAtVisitorAddress } from '../../http/link-base';
import { appRouter } from './router';

/** /trpc: the request's service context (with its session) is the procedures' context. */
export function trpcMiddleware() {
  return createExpressMiddleware({
    router: appRouter,
    // The pages' own calls: links in their answers start where the visitor is (http/link-base.ts).
    createContext: ({ req, res }) => {
      linkAtVisitorAddress(res.locals.ctx, req);
      return res.locals.ctx;
    },
    maxBodySize: 64 * 1024,
    // A dependency outage (trpc.ts) says when to try again, as on the other doors.
    responseMeta: ({ errors }) =>
      errors.some((error) => error.code === 'SERVICE_UNAVAILABLE')
        ? { headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) } }
        : {},
  });
}
