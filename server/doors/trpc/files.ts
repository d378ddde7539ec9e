import { z } from 'zod';
import { deleteFile, renameFile, shareUrl, updateShareSettings } from '../../services/files';
import { listMyFilesPage } from '../../services/my-files-page';
import { publicProcedure, router } from './trpc';

// What My files and a file's page do in place with JavaScript (ADR 0075); the services check the
// session, the input and that the file is the caller's, with the REST API's rules and messages.
export const filesRouter = router({
  // A page of the list, as the page's loader reads its first one: the same page size and cursor
  // (never every file: that was megabytes for a ShareX user, ADR 0008).
  list: publicProcedure
    .input(
      z.object({
        q: z.string().optional(),
        type: z.string().optional(),
        sort: z.string().optional(),
        cursor: z.string().optional(),
      }),
    )
    .query(({ ctx, input }) => listMyFilesPage(ctx, input)),
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
});
