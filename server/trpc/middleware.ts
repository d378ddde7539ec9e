import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { appRouter } from './router';

/** /trpc: the request's service context (with its session) is the procedures' context. */
export function trpcMiddleware() {
  return createExpressMiddleware({
    router: appRouter,
    createContext: ({ res }) => res.locals.ctx,
    maxBodySize: 64 * 1024,
  });
}
