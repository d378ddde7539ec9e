// The base procedures of the internal tRPC router (used by our UI only: not a public API).
import { initTRPC, TRPCError } from '@trpc/server';
import type { ServiceContext } from '../../context';
import { isAppError, type ErrorCode } from '../../utilities/errors';

// isDev false: tRPC otherwise puts the stack trace in every error it sends whenever NODE_ENV is
// not "production" (the built server does not set it) — never a stack trace.
const t = initTRPC.context<ServiceContext>().create({ isDev: false });

const TRPC_CODES: Record<ErrorCode, TRPCError['code']> = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  GONE: 'NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  LOCKED: 'CONFLICT',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  DEPENDENCY_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  INSUFFICIENT_STORAGE: 'INTERNAL_SERVER_ERROR',
};

/**
 * Maps service errors to tRPC errors once, for every procedure; others become a bare 500. A
 * database or storage outage is a 503 (with Retry-After: middleware.ts), logged once per outage (ADR 0030).
 */
const mapErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = ctx.outages.recognise(result.error.cause) ?? result.error.cause;
    if (isAppError(cause)) throw new TRPCError({ code: TRPC_CODES[cause.code], message: cause.message });
    if (result.error.code === 'INTERNAL_SERVER_ERROR') {
      ctx.log.error({ err: cause ?? result.error }, 'trpc procedure failed');
      throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
    }
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);
