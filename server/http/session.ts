// Recognises the session cookie on every request and renews it when it is close to expiry (ADR 0002).
// Which routes require a user is decided by the doors; this only identifies.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { readSessionToken, sessionCookie } from '../auth/cookie';
import { LOGOUT_PATHS } from '../auth/session-constants';
import type { ServiceContext } from '../context';
import { recogniseSession } from '../services/sessions';
import { carriesBearer } from './bearer';
import type { ResponseWithLocals } from './request-context';

/**
 * Makes the request's session cookie, if any and valid, the context's user, and adds the
 * renewed cookie to the response when the session was close to expiry.
 */
export async function recogniseRequestSession(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ResponseWithLocals,
  path: string,
): Promise<void> {
  res.locals ??= Object.create(null) as Partial<Express.Locals>;
  const locals = res.locals;
  locals.sessionRecognised = true;
  // Kept even beside an API token: a logout revokes the session of the cookie it clears. Not
  // when another site's request passed the cross-site guard for its token: that request is
  // judged by the token alone, so the cookie must not act for it (cross-site-guard.ts).
  const token = locals.cookieIgnored ? null : readSessionToken(req.headers.cookie);
  locals.sessionToken = token;
  // Judged by its API token alone (the API router checks it): the cookie neither signs in nor is renewed.
  if (carriesBearer(req) || !token) return;
  const session = await recogniseSession(ctx, token, { allowRenewal: !isLogoutPath(path) });
  if (!session) return;
  ctx.user = session.user;
  ctx.userQuotaColumns = session.quotaColumns;
  ctx.authMethod = 'session';
  ctx.sessionId = session.sessionId;
  if (session.renewed) {
    res.appendHeader('Set-Cookie', sessionCookie(ctx.config, session.renewed.token, session.renewed.maxAgeSeconds));
  }
}

export function sessionRecognition() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (res.locals.sessionRecognised) return next();
    recogniseRequestSession(res.locals.ctx, req, res, req.path).then(() => next(), next);
  };
}

/** Routing ignores case and a trailing slash, so this check does too. */
function isLogoutPath(path: string): boolean {
  return LOGOUT_PATHS.includes(path.toLowerCase().replace(/\/+$/, ''));
}
