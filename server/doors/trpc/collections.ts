import { z } from 'zod';
import { deleteCollection } from '../../services/collections';
import { publicProcedure, router } from './trpc';

// The owner's collections (ADR 0037), with the REST API's rules and messages.
export const collectionsRouter = router({
  // As `DELETE /api/v1/collections/<id>`: its files stay unless `deleteFiles` (then each goes as alone).
  delete: publicProcedure
    .input(z.object({ id: z.string().max(64), deleteFiles: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const { title } = await deleteCollection(ctx, input.id, { deleteFiles: input.deleteFiles });
      return { title };
    }),
});
