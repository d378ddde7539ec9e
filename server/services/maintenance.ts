// Start-up housekeeping (CONTRACT §7 crash safety): after a crash, leftovers of unfinished
// uploads are removed, and content that no record points to (a delete that stopped half-way)
// is removed too. Records are never removed here: content is written before its record.
import type { EntityManager } from '@mikro-orm/sqlite';
import type { Logger } from 'pino';
import { FileSchema } from '../db/entities/file.entity';
import type { ContentStore } from '../storage/content-store';

export async function reconcileStorage(deps: { em: EntityManager; store: ContentStore; log: Logger }) {
  const { em, store, log } = deps;
  const incomplete = await store.sweepIncomplete();
  const keys = await store.list();
  const records = await em.find(FileSchema, {}, { fields: ['storedName'] });
  const known = new Set(records.map((file) => file.storedName));
  const orphans = keys.filter((key) => !known.has(key));
  for (const key of orphans) await store.delete(key);
  if (incomplete || orphans.length) log.warn({ incomplete, orphans: orphans.length }, 'swept leftovers from an earlier run');
  return { incomplete, orphans: orphans.length };
}
