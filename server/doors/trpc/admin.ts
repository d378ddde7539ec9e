import { z } from 'zod';
import {
  createAccount,
  listAccounts,
  resetAccountTwoFactor,
  setAccountAdmin,
  setAccountDisabled,
  setAccountQuota,
  signAccountOutEverywhere,
} from '../../services/admin-accounts';
import { requireAdmin } from '../../services/admins';
import { createInvitation, listInvitations, revokeInvitation } from '../../services/invitations';
import { publicProcedure, router } from './trpc';

// The admin console's calls in place (ADR 0083). Anyone but an admin is answered NOT_FOUND before
// the input is read, as on the pages and the API; the services check again.
const adminProcedure = publicProcedure.use(async ({ ctx, next }) => {
  await requireAdmin(ctx);
  return next();
});

const account = z.object({ username: z.string().max(64) });

export const adminRouter = router({
  users: adminProcedure.input(z.record(z.unknown()).optional()).query(({ ctx, input }) => listAccounts(ctx, input)),
  create: adminProcedure
    .input(z.record(z.unknown()))
    .mutation(async ({ ctx, input }) => ({ user: await createAccount(ctx, input) })),
  setQuota: adminProcedure
    .input(account.extend({ quota: z.string().max(32) }))
    .mutation(async ({ ctx, input }) => ({ user: await setAccountQuota(ctx, input.username, input.quota) })),
  setDisabled: adminProcedure
    .input(account.extend({ disabled: z.boolean() }))
    .mutation(({ ctx, input }) => setAccountDisabled(ctx, input.username, input.disabled)),
  setAdmin: adminProcedure
    .input(account.extend({ admin: z.boolean() }))
    .mutation(({ ctx, input }) => setAccountAdmin(ctx, input.username, input.admin)),
  signOut: adminProcedure.input(account).mutation(({ ctx, input }) => signAccountOutEverywhere(ctx, input.username)),
  resetTwoFactor: adminProcedure
    .input(account)
    .mutation(({ ctx, input }) => resetAccountTwoFactor(ctx, input.username)),
  invitations: adminProcedure.query(async ({ ctx }) => ({ invitations: await listInvitations(ctx) })),
  createInvitation: adminProcedure
    .input(z.record(z.unknown()))
    .mutation(({ ctx, input }) => createInvitation(ctx, input)),
  revokeInvitation: adminProcedure
    .input(z.object({ id: z.string().max(64) }))
    .mutation(async ({ ctx, input }) => ({ invitation: await revokeInvitation(ctx, input.id) })),
});
