// The copy of an install to another database and store (ADR 0028, services/install-move.ts).
import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';

/** Inserts the rows whose primary key (`id`) the target lacks; rows it has are left as they are. */
export async function insertRowsMissingById<T extends { id: string }>(
  em: EntityManager,
  schema: EntitySchema<T>,
  rows: T[],
): Promise<void> {
  if (!rows.length) return;
  await em
    .createQueryBuilder(schema)
    .insert(rows as never)
    .onConflict('id' as never)
    .ignore()
    .execute();
}
