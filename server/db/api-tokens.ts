// The statement every request with an API token runs on the `api_tokens` table, written out
// (direct-sql.ts): the uploads of screenshot tools included. Tokens are otherwise written and
// read through the ORM (services/api-tokens.ts).
import type { DirectSql } from './direct-sql';
import type { StoredDate } from './stored-date';

/** A token and its enabled user. */
export interface TokenUserRow {
  tokenId: string;
  id: string;
  username: string;
  expiresAt: StoredDate;
  lastUsedAt: StoredDate;
}

const TOKEN_USER =
  'select "t"."id" as "tokenId", "u"."id" as "id", "u"."username" as "username", "t"."expires_at" as "expiresAt", ' +
  '"t"."last_used_at" as "lastUsedAt" from "api_tokens" "t" join "users" "u" on "u"."id" = "t"."user_id" ' +
  'where "t"."token_hash" = ? and "u"."disabled_at" is null limit 1';

/** The token with this hash and its user, in one query; null when there is none or its user is disabled. */
export async function selectTokenUser(sql: DirectSql, tokenHash: string): Promise<TokenUserRow | null> {
  const [row] = await sql.select<TokenUserRow>(TOKEN_USER, [tokenHash]);
  return row ?? null;
}
