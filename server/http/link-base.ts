// Where the links a page shows start (share links, a collection's or a request's link): BASE_URL
// when the operator set it, and otherwise the address the visitor opened the site at, so that a
// person who opened http://192.168.1.20:3000 copies links that work from another machine. The
// API's answers and what is sent out (webhooks) keep BASE_URL (or its default): they are read
// away from any page. Addresses the browser follows itself (redirects, a resumable upload's
// Location) are relative and never need either.
import type { Request } from 'express';
import type { ServiceContext } from '../context';

/**
 * The origin the visitor used: the protocol and host as `trust proxy` lets Express read them
 * (X-Forwarded-Proto / X-Forwarded-Host only behind a trusted proxy). The port is taken from the
 * host header it came in; a host that is no valid URL host gives null.
 */
export function visitorOrigin(req: Request): string | null {
  // req.hostname follows the `trust proxy` setting; the port comes from the host it names.
  const port = /:(\d+)$/.exec(req.get('X-Forwarded-Host') ?? '')?.[1] ?? /:(\d+)$/.exec(req.get('Host') ?? '')?.[1];
  try {
    return new URL(`${req.protocol}://${req.hostname}${port ? `:${port}` : ''}`).origin;
  } catch {
    return null;
  }
}

/** Makes the page's links start where the visitor is, unless BASE_URL says where they start. */
export function linkAtVisitorAddress(ctx: ServiceContext, req: Request): void {
  if (ctx.config.baseUrlSet) return;
  ctx.linkBase = visitorOrigin(req) ?? ctx.config.baseUrl;
}
