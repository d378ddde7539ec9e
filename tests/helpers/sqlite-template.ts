// A test app's new SQLite database starts as a copy of the run's migrated template
// (tests/global-setup.ts): bringing each new database up through every migration took the most
// of an app's start. Opening the copy still runs the migrator, which finds nothing to do.
import fs from 'node:fs';
import { inject } from 'vitest';
import type { DatabaseConfig } from '../../server/config';

/** Copies the template to a SQLite database about to be opened for the first time; one that exists is left as it is. */
export function seedSqliteDatabase(database: DatabaseConfig): void {
  if (database.dialect !== 'sqlite' || fs.existsSync(database.path)) return;
  // Runs without the global set-up (the unit tier) have none: their databases are migrated anew.
  const template = inject('sqliteTemplate');
  if (template) fs.copyFileSync(template, database.path, fs.constants.COPYFILE_EXCL);
}
