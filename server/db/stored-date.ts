/**
 * A date column as a raw knex query returns it: a Date on PostgreSQL, a number (milliseconds)
 * or text on SQLite. Queries that bypass the entity mapping read their dates through this.
 */
export type StoredDate = Date | number | string | null;

export function storedDateMillis(value: StoredDate): number | null {
  return value === null ? null : new Date(value).getTime();
}
