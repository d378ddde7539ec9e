// Refuses state-changing requests sent by another site: the Origin header, or without one
// `Sec-Fetch-Site: cross-site`. Scripts that send neither (curl, ShareX) pass.
//
// A request to the API that carries an API token (`Authorization: Bearer`) is not checked
// (ADR 0015): the token is no ambient credential. A browser attaches cookies to another site's
// forms by itself, never this header, so no other site can forge such a request; browser
// extensions and scripts that do send an Origin (`chrome-extension://…`) upload with a token.
// Such a request is judged by its token alone and uses nothing of the cookie: the guard marks
// it so, and session.ts then drops the cookie. The API logout is answered before the token
// is looked at and revokes the cookie's session, so it stays checked like a page.
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { LOGOUT_PATHS } from '../auth/session-constants';
import type { Config } from '../config';
import { carriesBearer } from './bearer';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Another site's request let through for its API token: nothing of its cookie may be used. */
      cookieIgnored?: boolean;
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const API_PREFIX = '/api/v1/';

export function crossSiteGuard(config: Config, refuse: (req: Request, res: Response) => void) {
  const publicOrigin = new URL(config.baseUrl).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method)) return next();
    if (!isCrossSite(req, [publicOrigin, `${req.protocol}://${req.get('host')}`])) return next();
    if (!isJudgedByToken(req, req.path)) return refuse(req, res);
    res.locals.cookieIgnored = true;
    next();
  };
}

/** Whether another site sent the request: its Origin is none of ours, or a browser says so. */
function isCrossSite(req: IncomingMessage, ownOrigins: string[]): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) return !ownOrigins.includes(origin);
  return req.headers['sec-fetch-site'] === 'cross-site';
}

/**
 * An API request with a Bearer header, other than the logout: the API's token check judges it
 * (a bad token is a 401 there), and nothing on the API reads the cookie once the header is seen.
 * Routing ignores case and trailing slashes, so this does too.
 */
function isJudgedByToken(req: IncomingMessage, path: string): boolean {
  if (!carriesBearer(req)) return false;
  const route = path.toLowerCase().replace(/\/+$/, '');
  return route.startsWith(API_PREFIX) && !LOGOUT_PATHS.includes(route);
}
