// `Authorization: Bearer <token>`: API tokens (ADR 0015). A request that carries one is judged
// by it alone: its cookie neither signs in nor is renewed, and on the API it needs no cross-site
// check (a form of another site can send cookies, never this header: cross-site-guard.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceContext } from '../context';
import { AppError } from '../utilities/errors';
import { recogniseApiToken } from '../services/api-tokens';
import { sendJsonError } from './json-errors';

/** The scheme named (case-insensitively, RFC 9110) in a request's Authorization header. */
export function carriesBearer(req: IncomingMessage): boolean {
  return /^bearer(\s|$)/i.test(req.headers.authorization ?? '');
}

/** The token of a well-formed `Bearer <token>` header; null for anything else. */
function bearerToken(req: IncomingMessage): string | null {
  return /^bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
}

/** Why a request's token was refused: the RFC 6750 challenge's error and description. */
export interface BearerRefusal {
  error: 'invalid_request' | 'invalid_token';
  description: string;
}

/** Makes the user of the request's API token the context's; why not when there is none. */
export async function recogniseBearerToken(ctx: ServiceContext, req: IncomingMessage): Promise<BearerRefusal | null> {
  const token = bearerToken(req);
  if (!token)
    return { error: 'invalid_request', description: 'Malformed Authorization header: expected "Bearer <token>"' };
  const user = await recogniseApiToken(ctx, token);
  if (!user) return { error: 'invalid_token', description: 'Invalid or expired token' };
  ctx.user = user;
  ctx.authMethod = 'token';
  return null;
}

/**
 * A refused token is unauthenticated: 401 {"error":"Unauthorized"}, as the API answers every
 * unauthenticated request (docs/api.md); what was wrong with the token goes in the
 * WWW-Authenticate challenge (RFC 6750, section 3), where a script's HTTP library looks for it.
 */
export function sendBearerRefusal(res: ServerResponse, refusal: BearerRefusal): void {
  res.setHeader(
    'WWW-Authenticate',
    `Bearer error="${refusal.error}", error_description="${refusal.description.replaceAll('"', "'")}"`,
  );
  sendJsonError(res, new AppError('UNAUTHORIZED', 'Unauthorized'));
}
