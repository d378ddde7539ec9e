import { adminRouter } from './admin';
import { collectionsRouter } from './collections';
import { filesRouter } from './files';
import { requestsRouter } from './requests';
import { tokensRouter } from './tokens';
import { router } from './trpc';
import { webhooksRouter } from './webhooks';

// The internal router the pages call in place (ADR 0075): one module per resource.
export const appRouter = router({
  files: filesRouter,
  requests: requestsRouter,
  collections: collectionsRouter,
  tokens: tokensRouter,
  webhooks: webhooksRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
