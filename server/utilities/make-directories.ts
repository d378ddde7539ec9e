import fs from 'node:fs';
import path from 'node:path';

/**
 * `mkdir -p`, one level at a time. Node's own `mkdirSync(dir, { recursive: true })` never
 * returns for a path under /proc (it retries ENOENT forever, at 100% CPU and deaf to SIGTERM);
 * this fails with the first level that cannot be made.
 */
export function makeDirectories(dir: string): void {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !fs.existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const level of missing) {
    try {
      fs.mkdirSync(level);
    } catch (error) {
      // Made meanwhile by another process starting at the same time: fine.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
