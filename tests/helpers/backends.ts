// The servers the PostgreSQL + S3 runs need, started for the test run and stopped after it
// (tests/global-setup.ts): a throwaway PostgreSQL cluster from Debian's `postgresql` package
// (its own data dir, port and socket dir, fsync off) and s3rver (npm) on a free port.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';

export interface RunningBackend {
  /** postgres://… of the cluster's superuser, or http://… of the S3 endpoint. */
  url: string;
  /** Where the server keeps its data. */
  directory?: string;
  stop(): Promise<void>;
}

/** The newest installed PostgreSQL's bin folder, or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

export interface RunningPostgres extends RunningBackend {
  /** Stops the server as an operator's fast shutdown does (clients are cut off), keeping its data. */
  stopServer(): void;
  /** Starts it again on the same port and data. */
  startServer(): void;
}

export async function startPostgres(): Promise<RunningPostgres> {
  const bin = postgresBin();
  if (!bin) {
    throw new Error(
      'PostgreSQL is not installed: `apt-get install -y postgresql` (the PostgreSQL + S3 tests need its initdb and pg_ctl)',
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-pg-'));
  const port = await freePort();
  // initdb refuses to run as root: run the cluster as the postgres user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const startServer = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
      'start',
    ]);
  startServer();
  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    stopServer: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    startServer,
    async stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export async function startS3(): Promise<RunningBackend> {
  const { default: S3rver } = (await import('s3rver')) as unknown as {
    default: new (options: object) => S3rverInstance;
  };
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  server.middleware.unshift(abortMultipartUpload(directory), listMultipartUploads(directory));
  const { port } = await server.run();
  return {
    url: `http://127.0.0.1:${port}`,
    directory,
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

interface S3rverInstance {
  middleware: KoaMiddleware[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
}

/** Where s3rver keeps the parts of a bucket's unfinished multipart uploads, one folder per upload. */
export function s3rverUploadsDir(directory: string, bucket: string): string {
  return path.join(directory, bucket, '._S3rver_uploads');
}

/**
 * AbortMultipartUpload, which s3rver lacks (it answers 405 and keeps the parts). The service
 * aborts every multipart upload that fails; with this the test server drops the parts as S3
 * does, so a test can see that nothing of a failed upload stays in the bucket.
 */
function abortMultipartUpload(directory: string): KoaMiddleware {
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== 'DELETE' || typeof uploadId !== 'string') return next();
    const bucket = ctx.path.split('/')[1] ?? '';
    if (!/^[\w.-]+$/.test(bucket) || !/^[\w.-]+$/.test(uploadId)) {
      ctx.status = 400;
      return;
    }
    await fs.promises.rm(path.join(s3rverUploadsDir(directory, bucket), uploadId), { recursive: true, force: true });
    ctx.status = 204;
  };
}

/**
 * ListMultipartUploads, which s3rver lacks too (NotImplemented): the service's start-up sweep
 * lists the uploads a crash left open and aborts those over an hour old. An upload's start
 * time is its folder's modification time, so a test can age it as it ages files on disk.
 */
function listMultipartUploads(directory: string): KoaMiddleware {
  return async (ctx, next) => {
    const bucket = /^\/([\w.-]+)\/?$/.exec(ctx.path)?.[1];
    if (ctx.method !== 'GET' || !bucket || ctx.query.uploads === undefined) return next();
    const uploadsDir = s3rverUploadsDir(directory, bucket);
    const ids = fs.existsSync(uploadsDir) ? fs.readdirSync(uploadsDir) : [];
    const uploads = ids.map((id) => {
      const folder = path.join(uploadsDir, id);
      const key = fs.readFileSync(path.join(folder, 'key'), 'utf8');
      return `<Upload><Key>${escapeXml(key)}</Key><UploadId>${escapeXml(id)}</UploadId><Initiated>${fs.statSync(folder).mtime.toISOString()}</Initiated></Upload>`;
    });
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Bucket>${escapeXml(bucket)}</Bucket><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${uploads.join('')}</ListMultipartUploadsResult>`;
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
