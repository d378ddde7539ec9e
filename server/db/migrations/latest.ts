// The last migration of each dialect's list (./index.ts), by name: what a database that is
// up to date has run. tests/db/migrations-latest.test.ts keeps it the list's last.
export const LATEST_MIGRATION = {
  sqlite: 'Migration20261211000000ActivityEvents',
  postgresql: 'Migration20261211000000ActivityEvents',
} as const;
