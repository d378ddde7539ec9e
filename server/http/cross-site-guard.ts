// Refuses state-changing requests sent by another site: the Origin header,
// or without one `Sec-Fetch-Site: cross-site`. Scripts that send neither (curl, ShareX) pass.
// A request with an API token is judged the same way, as CONTRACT.md asks of every
// state-changing request: no browser page of another site can send our token anyway (the
// service answers no CORS preflight), so nothing that works is refused.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function crossSiteGuard(config: Config, refuse: (req: Request, res: Response) => void) {
  const publicOrigin = new URL(config.baseUrl).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.get('origin');
    if (origin !== undefined) {
      const ownOrigin = `${req.protocol}://${req.get('host')}`;
      if (origin === publicOrigin || origin === ownOrigin) return next();
      return refuse(req, res);
    }
    if (req.get('sec-fetch-site') === 'cross-site') return refuse(req, res);
    next();
  };
}
