import { defineConfig } from '@mikro-orm/sqlite';
import { Migrator } from '@mikro-orm/migrations';
import { FileSchema } from './entities/file.entity';
import { SessionSchema } from './entities/session.entity';
import { UserSchema } from './entities/user.entity';
import { migrationsList } from './migrations';

/** Entities listed one by one: folder globs break once the code is bundled (STACK.md). */
export const entities = [UserSchema, FileSchema, SessionSchema];

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

export function mikroOrmConfig(databasePath: string) {
  return defineConfig({
    dbName: databasePath,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, silent: true },
    // Every SQLite connection: WAL so readers never block the writer, and a busy timeout so
    // a second process (the CLI while the server runs) waits for the lock instead of failing.
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
        connection.exec(
          'PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;',
          (error) => done(error, connection),
        );
      },
    },
    allowGlobalContext: false,
    debug: false,
    discovery: { warnWhenNoEntities: true },
  });
}
