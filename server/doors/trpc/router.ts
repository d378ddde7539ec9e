import { filesRouter } from './files';
import { requestsRouter } from './requests';
import { router } from './trpc';

// The internal router the pages call in place (ADR 0075): one module per resource.
export const appRouter = router({
  files: filesRouter,
  requests: requestsRouter,
});

export type AppRouter = typeof appRouter;
