// Which backend this test run uses: SQLite + disk (the default) or PostgreSQL + S3 (the
// `postgres-s3` vitest project sets TEST_BACKEND). The same suites run on both; what they
// inspect behind the service's back (stored content, unfinished uploads, rows) goes through
// here, so that a test reads the same on either backend.
import fs from 'node:fs';
import path from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  type S3Client,
} from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../server/config';
import { s3rverUploadsDir } from './backends';
import { bucketKeys, clientFor, freshBucketEnv } from './buckets';
import { freshMigratedPostgresUrl } from './databases';
import { readCommittedRows, type Row } from './outside-reader';

type BackendName = 'sqlite-disk' | 'postgres-s3';

const TEST_BACKEND: BackendName = process.env.TEST_BACKEND === 'postgres-s3' ? 'postgres-s3' : 'sqlite-disk';
export const onPostgresS3 = TEST_BACKEND === 'postgres-s3';

/** The environment of a fresh PostgreSQL database (migrated, no rows) and a fresh bucket, on the run's servers. */
export async function postgresS3Env(): Promise<Record<string, string>> {
  return { DATABASE_URL: await freshMigratedPostgresUrl(), ...(await freshBucketEnv()) };
}

/** What a fresh app needs on this run's backend: nothing on SQLite + disk, a new database and bucket otherwise. */
export async function backendEnv(): Promise<Record<string, string>> {
  return onPostgresS3 ? postgresS3Env() : {};
}

/** The content a service keeps, seen from outside it: its upload folder, or its bucket. */
export interface ContentInspector {
  /** Stored names of the content there, sorted (probes and temporary files left out). */
  stored(): Promise<string[]>;
  /** Uploads begun and neither finished nor cleaned away: temporary files, or unfinished multipart uploads. */
  incomplete(): Promise<string[]>;
  /** What resumable uploads under way keep: partial files, or open multipart uploads and tail objects. */
  partial(): Promise<string[]>;
  /** The bytes stored under `name`, or null when there are none. */
  read(name: string): Promise<Buffer | null>;
  /** Removes `name` behind the service's back. */
  remove(name: string): Promise<void>;
  /**
   * Makes the storage refuse new content (the temporary folder becomes a file; the bucket goes
   * away: it must be empty) until the returned function puts it back.
   */
  breakWrites(): Promise<() => Promise<void>>;
}

/** What a server process started with `env` keeps, seen from outside it: committed rows and content. */
export function outsideView(env: Record<string, string>): {
  committed(sql: string, params?: unknown[]): Promise<Row[]>;
  content: ContentInspector;
} {
  const config = loadConfig(env);
  return {
    committed: (sql, params) => readCommittedRows(config.database, sql, params),
    content: inspectContent(config),
  };
}

export function inspectContent(config: Pick<Config, 'storage'>): ContentInspector {
  return config.storage.kind === 'disk' ? inspectFolder(config.storage.dir) : inspectBucket(config.storage);
}

function inspectFolder(dir: string): ContentInspector {
  return {
    async stored() {
      return fs
        .readdirSync(dir)
        .filter((name) => !name.startsWith('.'))
        .sort();
    },
    async incomplete() {
      return fs.readdirSync(path.join(dir, '.incomplete')).sort();
    },
    async partial() {
      const resumable = path.join(dir, '.resumable');
      return fs.existsSync(resumable) ? fs.readdirSync(resumable).sort() : [];
    },
    async read(name) {
      try {
        return fs.readFileSync(path.join(dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async remove(name) {
      fs.rmSync(path.join(dir, name));
    },
    async breakWrites() {
      const incomplete = path.join(dir, '.incomplete');
      fs.rmSync(incomplete, { recursive: true });
      fs.writeFileSync(incomplete, 'not a directory any more');
      return async () => {
        fs.rmSync(incomplete);
        fs.mkdirSync(incomplete);
      };
    },
  };
}

function inspectBucket(storage: Extract<Config['storage'], { kind: 's3' }>): ContentInspector {
  const env = { S3_ENDPOINT: storage.endpoint!, S3_BUCKET: storage.bucket };
  const withClient = async <T>(use: (client: S3Client) => Promise<T>): Promise<T> => {
    const client = clientFor(storage.endpoint!);
    try {
      return await use(client);
    } finally {
      client.destroy();
    }
  };
  return {
    stored: () => bucketKeys(env),
    async incomplete() {
      const dir = s3rverUploadsDir(inject('s3Directory'), storage.bucket);
      return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
    },
    async partial() {
      const tails = await withClient(async (client) => {
        const listing = await client.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: '.resumable/' }));
        return (listing.Contents ?? []).map((object) => object.Key!);
      });
      return [...(await this.incomplete()), ...tails].sort();
    },
    read: (name) =>
      withClient(async (client) => {
        try {
          const object = await client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: name }));
          return Buffer.from(await object.Body!.transformToByteArray());
        } catch (error) {
          if (error instanceof NoSuchKey) return null;
          throw error;
        }
      }),
    remove: (name) =>
      withClient(
        async (client) => void (await client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: name }))),
      ),
    async breakWrites() {
      await withClient((client) => client.send(new DeleteBucketCommand({ Bucket: storage.bucket })));
      return () =>
        withClient(async (client) => void (await client.send(new CreateBucketCommand({ Bucket: storage.bucket }))));
    },
  };
}
