// The admin console's list of accounts (ADR 0083): one page of users with what each stores,
// searched by name and sorted by any column, in one statement however many users there are.
import type { EntityManager } from '@mikro-orm/knex';
import type { StoredDate } from './stored-date';

export const ACCOUNT_SORTS = ['username', 'created', 'lastSignIn', 'files', 'bytes'] as const;
type AccountSort = (typeof ACCOUNT_SORTS)[number];

/** A user's row as the list reads it (dates and numbers as the driver returns them). */
export interface AccountRow {
  id: string;
  username: string;
  createdAt: StoredDate;
  lastSignInAt: StoredDate;
  disabledAt: StoredDate;
  hasOwnQuota: boolean | number;
  quotaBytes: number | string | null;
  twoFactorEnabled: boolean | number;
  oidcSubject: string | null;
  isAdmin: boolean | number;
  files: number | string;
  bytes: number | string | null;
}

export interface AccountsPageQuery {
  /** Part of the username, any case ('' for all). */
  search: string;
  sort: AccountSort;
  descending: boolean;
  limit: number;
  offset: number;
}

const SORT_COLUMN: Record<AccountSort, string> = {
  username: 'u.username_key',
  created: 'u.created_at',
  lastSignIn: 'u.last_sign_in_at',
  files: 'files',
  bytes: 'bytes',
};

/** `search` as a LIKE pattern that matches it anywhere, its own % and _ taken literally. */
function containing(search: string): string {
  return `%${search.toLowerCase().replace(/[!%_]/g, (char) => `!${char}`)}%`;
}

function matching(em: EntityManager, search: string) {
  const users = em.getKnex()('users as u');
  return search ? users.whereRaw(`u.username_key like ? escape '!'`, [containing(search)]) : users;
}

/** How many users match the search. */
export async function countAccounts(em: EntityManager, search: string): Promise<number> {
  const row: { total?: number | string } | undefined = await matching(em, search).count('* as total').first();
  return Number(row?.total ?? 0);
}

/** One page of the users that match, each with their files and bytes, in the order asked for. */
export async function selectAccountsPage(em: EntityManager, query: AccountsPageQuery): Promise<AccountRow[]> {
  const knex = em.getKnex();
  const usage = knex('files').select('user_id').count('* as files').sum('size as bytes').groupBy('user_id').as('usage');
  const direction = query.descending ? 'desc' : 'asc';
  return matching(em, query.search)
    .leftJoin(usage, 'usage.user_id', 'u.id')
    .select(
      'u.id as id',
      'u.username as username',
      'u.created_at as createdAt',
      'u.last_sign_in_at as lastSignInAt',
      'u.disabled_at as disabledAt',
      'u.has_own_quota as hasOwnQuota',
      'u.quota_bytes as quotaBytes',
      'u.two_factor_enabled as twoFactorEnabled',
      'u.oidc_subject as oidcSubject',
      'u.is_admin as isAdmin',
      knex.raw('coalesce(usage.files, 0) as files'),
      knex.raw('coalesce(usage.bytes, 0) as bytes'),
    )
    .orderByRaw(`${SORT_COLUMN[query.sort]} ${direction} nulls last, u.username_key asc`)
    .limit(query.limit)
    .offset(query.offset);
}
