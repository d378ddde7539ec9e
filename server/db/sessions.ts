// The statement every request with a cookie runs on the `sessions` table, written out
// (direct-sql.ts). Sessions are otherwise written and read through the ORM (services/sessions.ts).
import type { UserQuotaColumns } from '../context';
import type { DirectSql } from './direct-sql';
import type { StoredDate } from './stored-date';

/** A live session's user: who it is, their quota setting, and when the session was last seen. */
export interface SessionUserRow extends UserQuotaColumns {
  id: string;
  username: string;
  lastSeenAt: StoredDate;
}

const SESSION_USER =
  'select "u"."id" as "id", "u"."username" as "username", "s"."last_seen_at" as "lastSeenAt", ' +
  '"u"."has_own_quota" as "hasOwnQuota", "u"."quota_bytes" as "quotaBytes" ' +
  'from "sessions" "s" join "users" "u" on "u"."id" = "s"."user_id" where "s"."id" = ? and "s"."user_id" = ? and "u"."disabled_at" is null';

/**
 * The session and its user in one query (tables and columns as the migrations create them):
 * null when the session is gone (logged out, expired and swept) or its user is gone or disabled.
 */
export async function selectSessionUser(
  sql: DirectSql,
  sessionId: string,
  userId: string,
): Promise<SessionUserRow | null> {
  const [row] = await sql.select<SessionUserRow>(SESSION_USER, [sessionId, userId]);
  return row ?? null;
}
