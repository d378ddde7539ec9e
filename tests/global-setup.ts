// Starts the PostgreSQL cluster and the S3 server the PostgreSQL + S3 runs use, once for the
// whole run; tests reach them through inject('postgresUrl') / inject('s3Endpoint').
import type { TestProject } from 'vitest/node';
import { startPostgres, startS3, type RunningBackend } from './helpers/backends';
import { makeMigratedTemplates } from './helpers/databases';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    s3Endpoint: string;
    /** s3rver's data folder: where it keeps the parts of unfinished multipart uploads. */
    s3Directory: string;
    /** A SQLite database file with today's migrations and no rows, that new ones are copied from. */
    sqliteTemplate: string;
  }
}

const running: RunningBackend[] = [];

export async function setup(project: TestProject): Promise<void> {
  const postgres = await startPostgres();
  running.push(postgres);
  const s3 = await startS3();
  running.push(s3);
  project.provide('postgresUrl', postgres.url);
  project.provide('s3Endpoint', s3.url);
  project.provide('s3Directory', s3.directory!);
  project.provide('sqliteTemplate', await makeMigratedTemplates(postgres.url));
}

export async function teardown(): Promise<void> {
  for (const backend of running.reverse()) await backend.stop();
}
