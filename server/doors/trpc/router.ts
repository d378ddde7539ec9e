import { z } from 'zod';
import {
  createFileRequest,
  deleteFileRequest,
  listFileRequests,
  setFileRequestClosed,
} from '../../services/file-requests/owner';
import { deleteFile, renameFile, shareUrl, updateShareSettings } from '../../services/files';
import { collectionsRouter } from './collections';
import { tokensRouter } from './tokens';
import { publicProcedure, router } from './trpc';
import { webhooksRouter } from './webhooks';

// Procedures call the same services as the REST API; the services check the session.
export const appRouter = router({
  files: router({
    // No list: /files reads its page of files in its loader (a list of every file was megabytes
    // for a ShareX user), and a delete or change runs that loader again.
    // The settings are checked by the service, with the same rules and messages as the API's PATCH.
    updateShare: publicProcedure
      .input(z.object({ id: z.string().max(64), settings: z.record(z.unknown()) }))
      .mutation(async ({ ctx, input }) => {
        const file = await updateShareSettings(ctx, input.id, input.settings);
        return { ...file, url: shareUrl(ctx, file.id) };
      }),
    // The name is checked by the service, with the same rules and messages as the API's PATCH.
    rename: publicProcedure
      .input(z.object({ id: z.string().max(64), originalName: z.unknown() }))
      .mutation(async ({ ctx, input }) => {
        const file = await renameFile(ctx, input.id, input.originalName);
        return { ...file, url: shareUrl(ctx, file.id) };
      }),
    delete: publicProcedure.input(z.object({ id: z.string().max(64) })).mutation(async ({ ctx, input }) => {
      await deleteFile(ctx, input.id);
      return { ok: true as const };
    }),
  }),
  // File requests (ADR 0048), with the REST API's rules and messages: the service checks the body.
  requests: router({
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
  }),
  collections: collectionsRouter,
  tokens: tokensRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
