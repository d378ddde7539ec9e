// Refuses state-changing requests sent by another site: the Origin header,
// or without one `Sec-Fetch-Site: cross-site`. Scripts that send neither (curl) pass, and so do
// requests with an API token: they carry no cookie that another site could ride on.
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config';
import { carriesBearer } from './bearer';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function crossSiteGuard(config: Config, refuse: (req: Request, res: Response) => void) {
  const publicOrigin = new URL(config.baseUrl).origin;
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method) || carriesBearer(req)) return next();
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
