import type { Request, Response } from 'express';
import type { AppDeps } from '../context';

/** GET /healthz: 200 when the database answers and the upload dir is writable (CONTRACT §7). */
export function healthCheck(deps: AppDeps) {
  return async (_req: Request, res: Response) => {
    const problems: string[] = [];
    try {
      await deps.orm.em.fork().getConnection().execute('select 1');
    } catch {
      problems.push('database unavailable');
    }
    try {
      await deps.store.checkWritable();
    } catch {
      problems.push('upload directory not writable');
    }
    res.setHeader('Cache-Control', 'no-store');
    if (problems.length) res.status(503).json({ status: 'error', problems });
    else res.status(200).json({ status: 'ok' });
  };
}
