import { z } from 'zod';
import { createApiToken, revokeApiToken } from '../../services/api-tokens';
import { publicProcedure, router } from './trpc';

// Settings' API tokens, with the REST API's rules and messages: the service checks the body and
// refuses a token (a session only manages tokens).
export const tokensRouter = router({
  create: publicProcedure.input(z.record(z.unknown())).mutation(async ({ ctx, input }) => {
    const { token, apiToken } = await createApiToken(ctx, input);
    return { token, name: apiToken.name };
  }),
  revoke: publicProcedure.input(z.object({ id: z.string().max(64) })).mutation(async ({ ctx, input }) => {
    await revokeApiToken(ctx, input.id);
    return { ok: true as const };
  }),
});
