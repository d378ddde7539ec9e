// Statements on the `invitations` table that the ORM cannot say as one atomic statement.
import type { EntityManager } from '@mikro-orm/knex';

/** Takes one use of an open invitation; false when it is used up or revoked meanwhile. */
export async function takeInvitationUse(em: EntityManager, id: string): Promise<boolean> {
  const result = await em
    .getConnection()
    .execute(
      'update "invitations" set "uses" = "uses" + 1 where "id" = ? and "uses" < "max_uses" and "revoked_at" is null',
      [id],
      'run',
    );
  // MikroORM reports the rows a 'run' changed as affectedRows, on SQLite and PostgreSQL alike.
  return (result as { affectedRows?: number }).affectedRows === 1;
}

/** Gives back a use taken for an account that could not be made after all. */
export async function giveInvitationUseBack(em: EntityManager, id: string): Promise<void> {
  await em
    .getConnection()
    .execute('update "invitations" set "uses" = "uses" - 1 where "id" = ? and "uses" > 0', [id], 'run');
}
