import { z } from 'zod';
import {
  createFileRequest,
  deleteFileRequest,
  listFileRequests,
  setFileRequestClosed,
} from '../../services/file-requests/owner';
import { publicProcedure, router } from './trpc';

// File requests (ADR 0048), with the REST API's rules and messages: the service checks the body.
export const requestsRouter = router({
  list: publicProcedure.query(async ({ ctx }) => ({ requests: await listFileRequests(ctx) })),
  create: publicProcedure
    .input(z.record(z.unknown()))
    .mutation(async ({ ctx, input }) => ({ request: await createFileRequest(ctx, input) })),
  setClosed: publicProcedure
    .input(z.object({ id: z.string().max(64), closed: z.unknown() }))
    .mutation(async ({ ctx, input }) => ({ request: await setFileRequestClosed(ctx, input.id, input.closed) })),
  delete: publicProcedure.input(z.object({ id: z.string().max(64) })).mutation(async ({ ctx, input }) => {
    await deleteFileRequest(ctx, input.id);
    return { ok: true as const };
  }),
});
