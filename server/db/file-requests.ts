// A file request's places and figures (ADR 0048): the statements the metering in
// services/request-metering.ts and services/file-requests/ run, with their locks.
import type { EntityManager } from '@mikro-orm/knex';
import type { DirectSql } from './direct-sql';

/** A request owner's row as the request's rules read it. */
export interface RequestOwnerRow {
  id: string;
  username: string;
  disabledAt: unknown;
}

/**
 * What a request takes now, in one statement (inside `em`'s transaction when it has one): its
 * files and their bytes, and the places held by uploads under way other than `exceptUpload`
 * (alive: refreshed since `freshSince`, or a resumable upload unfinished and not expired at `now`).
 */
export async function sumRequestUsage(
  em: EntityManager,
  postgres: boolean,
  requestId: string,
  exceptUpload: string | null,
  times: { now: number; freshSince: number },
): Promise<{ files: number; bytes: number; heldFiles: number; heldBytes: number }> {
  const knex = em.getKnex();
  const transaction = em.getTransactionContext();
  // An upload whose file is recorded already counts once, as the file.
  const recorded = knex('files').select(knex.raw('1')).where('files.id', knex.ref('file_request_uploads.file_id'));
  const instant = (ms: number) => (postgres ? new Date(ms) : ms);
  // A resumable upload's place lives as long as the upload, whatever its receivers do.
  const liveResumable = knex('resumable_uploads')
    .select(knex.raw('1'))
    .where('resumable_uploads.id', knex.ref('file_request_uploads.id'))
    .whereNull('resumable_uploads.finished_at')
    .where('resumable_uploads.expires_at', '>', instant(times.now));
  const held = () => {
    const uploads = knex('file_request_uploads')
      .where({ request_id: requestId })
      .where((alive) => alive.where('updated_at', '>=', instant(times.freshSince)).orWhereExists(liveResumable))
      .whereNotExists(recorded);
    return exceptUpload ? uploads.whereNot({ id: exceptUpload }) : uploads;
  };
  const received = () => knex('files').where({ request_id: requestId });
  // One statement, so one snapshot: read in two, an upload whose file was recorded and whose
  // place was given back between them would count in neither (PostgreSQL reads each statement
  // as of its own start), and a request for 5 files could take a 6th.
  const usage = knex.first({
    files: received().count('*'),
    bytes: received().sum('size'),
    heldFiles: held().count('*'),
    heldBytes: held().sum('bytes'),
  });
  const row: Record<'files' | 'bytes' | 'heldFiles' | 'heldBytes', number | string | null> | undefined =
    await (transaction ? usage.transacting(transaction) : usage);
  return {
    files: Number(row?.files ?? 0),
    bytes: Number(row?.bytes ?? 0),
    heldFiles: Number(row?.heldFiles ?? 0),
    heldBytes: Number(row?.heldBytes ?? 0),
  };
}

/**
 * Inside `em`'s transaction: takes the request's row as a lock (PostgreSQL: FOR UPDATE; SQLite
 * has a single writer). False when the request is gone.
 */
export async function lockFileRequestRow(em: EntityManager, postgres: boolean, requestId: string): Promise<boolean> {
  const transaction = em.getTransactionContext();
  const lock = em.getKnex()('file_requests').transacting(transaction).where({ id: requestId });
  const row = await (postgres ? lock.forUpdate() : lock).first('id');
  return Boolean(row);
}

/**
 * A request owner's row. Inside the request's lock (`em` in a transaction), on its transaction's
 * connection: a pool of waiters must not starve it. Else written out (direct-sql.ts).
 */
export async function selectRequestOwner(
  sql: DirectSql,
  em: EntityManager | undefined,
  userId: string,
): Promise<RequestOwnerRow | null> {
  const transaction = em?.getTransactionContext();
  if (em && transaction) {
    const row: { id: string; username: string; disabled_at: unknown } | undefined = await em
      .getKnex()('users')
      .transacting(transaction)
      .where({ id: userId })
      .first('id', 'username', 'disabled_at');
    return row ? { id: row.id, username: row.username, disabledAt: row.disabled_at } : null;
  }
  const [row] = await sql.select<RequestOwnerRow>(
    'select "id", "username", "disabled_at" as "disabledAt" from "users" where "id" = ?',
    [userId],
  );
  return row ?? null;
}
