import { defineConfig } from '@mikro-orm/sqlite';
import { Migrator } from '@mikro-orm/migrations';
import { FileSchema } from './entities/file.entity';
import { HealthProbeSchema } from './entities/health-probe.entity';
import { LoginAttemptSchema } from './entities/login-attempt.entity';
import { SessionSchema } from './entities/session.entity';
import { UserSchema } from './entities/user.entity';
import { migrationsList } from './migrations';

/** Entities listed one by one: folder globs break once the code is bundled (STACK.md). */
export const entities = [UserSchema, FileSchema, SessionSchema, LoginAttemptSchema, HealthProbeSchema];

interface SqliteConnection {
  /** False once the connection was closed. */
  open: boolean;
  exec(sql: string, callback: (error: Error | null) => void): void;
}

// Every SQLite connection: WAL so readers never block the writer, and a busy timeout so a
// second process (the CLI while the server runs) waits for the lock instead of failing.
// (knex's pool options: MikroORM passes `validate` through, though its type omits it.)
const sqlitePool = {
  min: 1,
  max: 1,
  afterCreate(connection: SqliteConnection, done: (error: Error | null, connection: unknown) => void) {
    connection.exec(
      'PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;',
      (error) => done(error, connection),
    );
  },
  // Checked each time a connection is taken from the pool: a closed one is replaced.
  validate: (connection: SqliteConnection) => connection.open,
};

export function mikroOrmConfig(databasePath: string) {
  return defineConfig({
    dbName: databasePath,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, silent: true },
    pool: sqlitePool,
    allowGlobalContext: false,
    debug: false,
    discovery: { warnWhenNoEntities: true },
  });
}
