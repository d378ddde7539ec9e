// Statements on the `users` table that the ORM cannot say as one atomic statement.
import type { EntityManager } from '@mikro-orm/knex';

/** Wrong codes locked the account's code step (ADR 0058): added to those kept for its owner's next sign-in. */
export async function addWrongCodesLockOut(
  em: EntityManager,
  userId: string,
  wrongCodes: number,
  lockedAt: number,
): Promise<void> {
  await em
    .getConnection()
    .execute(
      'update "users" set "unreported_wrong_codes" = "unreported_wrong_codes" + ?, "wrong_codes_locked_at" = ? where "id" = ?',
      [wrongCodes, lockedAt, userId],
      'run',
    );
}
