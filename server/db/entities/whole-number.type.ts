import { Type, type EntityProperty, type Platform } from '@mikro-orm/core';
import { BaseSqlitePlatform } from '@mikro-orm/knex';

/**
 * A whole number that may pass 2^31 (file sizes, epoch milliseconds), as a JS number:
 * `bigint` on PostgreSQL (whose `int` stops at 2 GiB), `integer` on SQLite (already 64-bit,
 * and what the SQLite migrations made). PostgreSQL's driver hands bigint back as text.
 */
export class WholeNumberType extends Type<number, number | string> {
  override convertToJSValue(value: number | string): number {
    return Number(value);
  }

  override getColumnType(_prop: EntityProperty, platform: Platform): string {
    return platform instanceof BaseSqlitePlatform ? 'integer' : 'bigint';
  }

  override compareAsType(): string {
    return 'number';
  }
}
