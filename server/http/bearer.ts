// `Authorization: Bearer <token>`: API tokens (ADR 0015). A request that carries one is judged
// by it alone: its cookie neither signs in nor is renewed, and on the API it needs no cross-site
// check (a form of another site can send cookies, never this header: cross-site-guard.ts).
import type { IncomingMessage } from 'node:http';

/** The scheme named (case-insensitively, RFC 9110) in a request's Authorization header. */
export function carriesBearer(req: IncomingMessage): boolean {
  return /^bearer(\s|$)/i.test(req.headers.authorization ?? '');
}

/** The token of a well-formed `Bearer <token>` header; null for anything else. */
export function bearerToken(req: IncomingMessage): string | null {
  return /^bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
}
