// What fills a user's storage, read for quotas (ADR 0018): their files' sizes, the bytes their
// multipart uploads hold (`upload_reservations`) and the whole length of each unfinished
// resumable upload. The rules that use these figures live in services/quotas.ts and
// services/storage-usage.ts.
import type { EntityManager } from '@mikro-orm/knex';
import type { DirectSql } from './direct-sql';

/** Bytes held against a quota by uploads not yet files, and how many uploads hold them. */
export interface HeldBytes {
  bytes: number;
  uploads: number;
}

/** A user's quota columns, as the session's query reads them too. */
export interface QuotaColumns {
  hasOwnQuota: boolean | number;
  quotaBytes: number | string | null;
}

type Row = { bytes?: number | string | null; uploads?: number | string } | undefined;
type SumRow = { bytes?: number | string | null } | undefined;

/** A table's query, inside `em`'s transaction when it has one (else SQLite's one connection would wait on itself). */
function tableOf(em: EntityManager, name: string) {
  const query = em.getKnex()(name);
  const transaction = em.getTransactionContext();
  return transaction ? query.transacting(transaction) : query;
}

/** How many files a user has stored and their bytes (uploads in progress not included). */
export async function countFilesAndBytesOfUser(
  em: EntityManager,
  userId: string,
): Promise<{ files: number; bytes: number }> {
  const row: { files?: number | string; bytes?: number | string | null } | undefined = await em
    .getKnex()('files')
    .where({ user_id: userId })
    .count('* as files')
    .sum('size as bytes')
    .first();
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** How many files the whole site stores, and their bytes. */
export async function countAllFilesAndBytes(em: EntityManager): Promise<{ files: number; bytes: number }> {
  const row: { files?: number | string; bytes?: number | string | null } | undefined = await em
    .getKnex()('files')
    .count('* as files')
    .sum('size as bytes')
    .first();
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Every user's files and bytes, by user id; a user without files is absent. */
export async function countFilesAndBytesByUser(
  em: EntityManager,
): Promise<Map<string, { files: number; bytes: number }>> {
  const usage: { userId: string; files: number | string; bytes: number | string | null }[] = await em
    .getKnex()('files')
    .select('user_id as userId')
    .count('* as files')
    .sum('size as bytes')
    .groupBy('user_id');
  return new Map(usage.map((row) => [row.userId, { files: Number(row.files), bytes: Number(row.bytes ?? 0) }]));
}

/** The bytes of a user's files, inside `em`'s transaction when it has one. */
export async function sumFileBytesOfUser(em: EntityManager, userId: string): Promise<number> {
  const used: Row = await tableOf(em, 'files').where({ user_id: userId }).sum('size as bytes').first();
  return Number(used?.bytes ?? 0);
}

/** What a user's unfinished uploads hold right now, inside `em`'s transaction when it has one. */
export async function sumHeldBytesOfUser(em: EntityManager, userId: string): Promise<HeldBytes> {
  // A multipart upload's row holds nothing without a quota (it is then only its sign of life).
  const reserved: Row = await tableOf(em, 'upload_reservations')
    .where({ user_id: userId })
    .where('bytes', '>', 0)
    .count('* as uploads')
    .sum('bytes as bytes')
    .first();
  const resumable: Row = await tableOf(em, 'resumable_uploads')
    .where({ user_id: userId })
    .whereNull('finished_at')
    .count('* as uploads')
    .sum('length as bytes')
    .first();
  return {
    bytes: Number(reserved?.bytes ?? 0) + Number(resumable?.bytes ?? 0),
    uploads: Number(reserved?.uploads ?? 0) + Number(resumable?.uploads ?? 0),
  };
}

/** Every user's holds, by user id; a user holding nothing is absent. */
export async function sumHeldBytesByUser(em: EntityManager): Promise<Map<string, HeldBytes>> {
  type GroupRow = { userId: string; bytes: number | string | null; uploads: number | string };
  const reserved: GroupRow[] = await em
    .getKnex()('upload_reservations')
    .where('bytes', '>', 0)
    .select('user_id as userId')
    .count('* as uploads')
    .sum('bytes as bytes')
    .groupBy('user_id');
  const resumable: GroupRow[] = await em
    .getKnex()('resumable_uploads')
    .whereNull('finished_at')
    .select('user_id as userId')
    .count('* as uploads')
    .sum('length as bytes')
    .groupBy('user_id');
  const held = new Map<string, HeldBytes>();
  for (const row of [...reserved, ...resumable]) {
    const sum = held.get(row.userId) ?? { bytes: 0, uploads: 0 };
    held.set(row.userId, { bytes: sum.bytes + Number(row.bytes ?? 0), uploads: sum.uploads + Number(row.uploads) });
  }
  return held;
}

/**
 * Inside `em`'s transaction: takes the user's row as a lock (PostgreSQL: FOR UPDATE; SQLite has
 * a single writer already), then reads what counts against their quota: their files, the holds
 * of their uploads other than `exceptHold`, and the whole length of each unfinished resumable upload.
 */
export async function lockUserAndSumQuotaUse(
  em: EntityManager,
  postgres: boolean,
  userId: string,
  exceptHold: string | null,
): Promise<{ filesBytes: number; heldBytes: number; resumableBytes: number }> {
  const transaction = em.getTransactionContext();
  if (!transaction) throw new Error('lockUserAndSumQuotaUse runs inside a transaction');
  const inTransaction = (table: string) => em.getKnex()(table).transacting(transaction);
  const lockUser = inTransaction('users').where({ id: userId });
  await (postgres ? lockUser.forUpdate() : lockUser).first('id');
  // A hold whose file is recorded already (given back a moment later) counts once, as the file:
  // counted twice, it could refuse an upload that fits to the byte. Holds are read before the
  // files, so that a file recorded in between is counted twice rather than not at all.
  const knex = em.getKnex();
  const recorded = knex('files')
    .select(knex.raw('1'))
    .where('files.stored_name', knex.ref('upload_reservations.stored_name'));
  const holds = inTransaction('upload_reservations').where({ user_id: userId }).whereNotExists(recorded);
  const held: SumRow = await (exceptHold ? holds.whereNot({ id: exceptHold }) : holds).sum('bytes as bytes').first();
  const used: SumRow = await inTransaction('files').where({ user_id: userId }).sum('size as bytes').first();
  const resumable: SumRow = await inTransaction('resumable_uploads')
    .where({ user_id: userId })
    .whereNull('finished_at')
    .sum('length as bytes')
    .first();
  return {
    filesBytes: Number(used?.bytes ?? 0),
    heldBytes: Number(held?.bytes ?? 0),
    resumableBytes: Number(resumable?.bytes ?? 0),
  };
}

const QUOTA_COLUMNS_OF_USER =
  'select "has_own_quota" as "hasOwnQuota", "quota_bytes" as "quotaBytes" from "users" where "id" = ?';

/** A user's quota columns, written out (direct-sql.ts): asked before every upload by an API token. */
export async function selectQuotaColumnsOfUser(sql: DirectSql, userId: string): Promise<QuotaColumns | null> {
  const [user] = await sql.select<QuotaColumns>(QUOTA_COLUMNS_OF_USER, [userId]);
  return user ?? null;
}
