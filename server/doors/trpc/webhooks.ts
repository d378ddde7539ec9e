import { z } from 'zod';
import { createWebhook, deleteWebhook, resendWebhookDelivery } from '../../services/webhooks';
import { publicProcedure, router } from './trpc';

// Settings' webhooks (ADR 0050), with the REST API's rules and messages: the service checks the body.
export const webhooksRouter = router({
  // The signing secret is in this answer only, as in the API's.
  create: publicProcedure.input(z.record(z.unknown())).mutation(async ({ ctx, input }) => {
    const { webhook, secret } = await createWebhook(ctx, input);
    return { url: webhook.url, secret };
  }),
  delete: publicProcedure.input(z.object({ id: z.string().max(64) })).mutation(async ({ ctx, input }) => {
    await deleteWebhook(ctx, input.id);
    return { ok: true as const };
  }),
  resendDelivery: publicProcedure
    .input(z.object({ id: z.string().max(64), deliveryId: z.string().max(64) }))
    .mutation(async ({ ctx, input }) => {
      await resendWebhookDelivery(ctx, input.id, input.deliveryId);
      return { ok: true as const };
    }),
});
