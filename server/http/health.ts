import type { Request, Response } from 'express';
import type { AppDeps } from '../context';
import { probeDatabaseWrite, replacePooledConnections } from '../db/database-health';

/**
 * GET /healthz: 200 when the database commits a write and the storage (the upload dir, or the bucket) takes files
 * (README: Health, logs and stopping). A failed database probe answers 503 and replaces the pooled connections,
 * so a connection broken by a fault is not kept for good.
 */
export function healthCheck(deps: AppDeps) {
  return async (_req: Request, res: Response) => {
    const problems: string[] = [];
    try {
      await probeDatabaseWrite(deps.orm);
    } catch (error) {
      problems.push('database unavailable');
      deps.log.warn({ err: error }, 'health check: the database did not take a write');
      await replacePooledConnections(deps.orm, deps.log, 'health check failed');
    }
    try {
      await deps.store.checkWritable();
    } catch {
      problems.push(deps.config.storage.kind === 'disk' ? 'upload directory not writable' : 'storage unavailable');
    }
    res.setHeader('Cache-Control', 'no-store');
    if (problems.length) res.status(503).json({ status: 'error', problems });
    else res.status(200).json({ status: 'ok' });
  };
}
