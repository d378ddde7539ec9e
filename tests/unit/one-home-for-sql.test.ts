import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// ADR 0033, "One home for SQL": the query builder, the driver's connection and raw SQL fragments
// are used in server/db/ only. `npm run lint:deps` keeps the knex packages out of these folders;
// this keeps out what the ORM's own EntityManager hands out.
const FOLDERS = ['server/services', 'server/webhooks', 'server/instance'];
const QUERY_BUILDING = /createQueryBuilder|getKnex|getConnection\(|\.execute\(|\braw\(/;

function sourcesUnder(folder: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

describe('where SQL is built', () => {
  it('when a service, the webhook deliverer or an instance part reaches the database, then it does so without the query builder or raw SQL', () => {
    const offending = FOLDERS.flatMap(sourcesUnder).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (QUERY_BUILDING.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offending).toEqual([]);
  });
});
