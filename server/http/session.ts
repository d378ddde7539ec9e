// Recognises the session cookie on every request and renews it when it is close to expiry (ADR 0002).
// Which routes require a user is decided by the doors; this only identifies.
import type { NextFunction, Request, Response } from 'express';
import { readSessionToken, sessionCookie } from '../auth/cookie';
import { LOGOUT_PATHS } from '../auth/session-constants';
import { recogniseSession } from '../services/sessions';
import { carriesBearer } from './bearer';

export function sessionRecognition() {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const ctx = res.locals.ctx;
      // Judged by its API token alone (the API router checks it): no cookie read, none set.
      if (carriesBearer(req)) {
        res.locals.sessionToken = null;
        return next();
      }
      const token = readSessionToken(req.headers.cookie);
      res.locals.sessionToken = token;
      if (token) {
        const session = await recogniseSession(ctx, token, { allowRenewal: !isLogoutPath(req.path) });
        if (session) {
          ctx.user = session.user;
          ctx.authMethod = 'session';
          ctx.sessionId = session.sessionId;
          if (session.renewed) {
            res.append('Set-Cookie', sessionCookie(ctx.config, session.renewed.token, session.renewed.maxAgeSeconds));
          }
        }
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Routing ignores case and a trailing slash, so this check does too. */
function isLogoutPath(path: string): boolean {
  return LOGOUT_PATHS.includes(path.toLowerCase().replace(/\/+$/, ''));
}
