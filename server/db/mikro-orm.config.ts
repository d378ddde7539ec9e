import type { Options } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config';
import { ApiTokenSchema } from './entities/api-token.entity';
import { CollectionFileSchema } from './entities/collection-file.entity';
import { CollectionSchema } from './entities/collection.entity';
import { FileSchema } from './entities/file.entity';
import { FileRequestSchema, FileRequestUploadSchema } from './entities/file-request.entity';
import { ActivityEventSchema } from './entities/activity-event.entity';
import { InvitationSchema } from './entities/invitation.entity';
import { HealthProbeSchema } from './entities/health-probe.entity';
import { LoginAttemptSchema } from './entities/login-attempt.entity';
import { SessionSchema } from './entities/session.entity';
import { ResumableUploadSchema } from './entities/resumable-upload.entity';
import { UploadReservationSchema } from './entities/upload-reservation.entity';
import { UserSchema } from './entities/user.entity';
import { WebhookDeliverySchema } from './entities/webhook-delivery.entity';
import { WebhookEndpointSchema } from './entities/webhook-endpoint.entity';
import { libraryLogger } from '../utilities/library-logs';

/** Entities listed one by one: folder globs break once the code is bundled. */
const entities = [
  UserSchema,
  FileSchema,
  SessionSchema,
  ApiTokenSchema,
  LoginAttemptSchema,
  HealthProbeSchema,
  UploadReservationSchema,
  ResumableUploadSchema,
  CollectionSchema,
  CollectionFileSchema,
  WebhookEndpointSchema,
  WebhookDeliverySchema,
  FileRequestSchema,
  FileRequestUploadSchema,
  InvitationSchema,
  ActivityEventSchema,
];

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

/** PostgreSQL: a pool per instance; several instances share the server. */
const POSTGRES_POOL = { min: 0, max: 10 };

/** `log` receives what knex would print on the console (e.g. a replaced broken connection). */
export async function mikroOrmConfig(database: DatabaseConfig, log?: Logger): Promise<Options> {
  const common = {
    driverOptions: log ? { log: libraryLogger(log, 'knex', { errors: true }) } : {},
    entities,
    // The list of migrations is added when they are to run (server/db/migrate.ts).
    migrations: {
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    allowGlobalContext: false,
    // Off, and never per request (`loggerContext`): MikroORM's query log writes each statement
    // with its values, a password's hash among them (ADR 0059).
    debug: false,
    discovery: { warnWhenNoEntities: true },
  };
  if (database.dialect === 'postgresql') {
    // Each driver is loaded only when configured: the other one's client is memory for nothing.
    const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
    return { ...common, driver: PostgreSqlDriver, clientUrl: database.url, pool: POSTGRES_POOL };
  }
  const { SqliteDriver } = await import('@mikro-orm/sqlite');
  return { ...common, driver: SqliteDriver, dbName: database.path, pool: sqlitePool };
}
