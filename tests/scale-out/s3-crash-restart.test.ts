// kill -9 of a server on PostgreSQL + S3 in the middle of a multipart upload: no object and no
// row, only the open upload's parts in the bucket; the next start aborts that upload once it is
// over an hour old (as the disk store removes an old temporary file), and leaves a younger one
// alone: it may be another instance's upload in progress.
import fs from 'node:fs';
import path from 'node:path';
import { CreateMultipartUploadCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { tempDir, TEST_SECRET } from '../helpers/app';
import { s3rverUploadsDir } from '../helpers/backends';
import { bucketKeys, clientFor } from '../helpers/buckets';
import { openUpload, poll } from '../helpers/multipart';
import { readCommittedRows } from '../helpers/outside-reader';
import { CLI_JS, runNode, startServerProcess, type ServerProcess } from '../helpers/process';
import { postgresS3Env } from '../helpers/test-backend';

const PASSWORD = 'correct horse battery';
let env: Record<string, string>;
let server: ServerProcess | undefined;

beforeAll(async () => {
  env = { ...(await postgresS3Env()), SESSION_SECRET: TEST_SECRET, LOG_LEVEL: 'info' };
  const made = await runNode(CLI_JS, ['crasher', '--password-stdin'], {
    env: { ...env, DATA_DIR: tempDir() },
    input: `${PASSWORD}\n`,
  });
  expect(made.code, made.stderr).toBe(0);
}, 60_000);
afterEach(() => server?.kill());

/** Unfinished multipart uploads of the bucket, by upload id, as the S3 server keeps them. */
function openUploads(): string[] {
  const dir = s3rverUploadsDir(inject('s3Directory'), env.S3_BUCKET);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
}

function ageUpload(uploadId: string, hours: number): void {
  const then = new Date(Date.now() - hours * 60 * 60 * 1000);
  fs.utimesSync(path.join(s3rverUploadsDir(inject('s3Directory'), env.S3_BUCKET), uploadId), then, then);
}

describe('a server on S3 killed mid-upload', () => {
  it('when it starts again, then the open multipart upload it left is aborted once over an hour old, and a younger one stays', {
    timeout: 90_000,
  }, async () => {
    server = await startServerProcess({ ...env, DATA_DIR: tempDir() });
    const login = await fetch(`${server.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'crasher', password: PASSWORD }),
    });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    // The server dies under it: its answer is never awaited.
    const { request: req } = openUpload(server.url, cookie, { filename: 'doomed.bin', size: 50 * 1024 * 1024 });
    req.write(Buffer.alloc(9 * 1024 * 1024, 3)); // more than one 8 MiB part: a multipart upload begins
    expect(await poll(() => openUploads().length === 1, 15_000)).toBe(true);

    server.child.kill('SIGKILL');
    await server.stop();
    const [crashed] = openUploads();
    expect(await bucketKeys(env)).toEqual([]);
    expect(await readCommittedRows({ dialect: 'postgresql', url: env.DATABASE_URL }, 'select id from files')).toEqual(
      [],
    );

    // Another instance's upload, begun just now under a stored name's shape.
    const client = clientFor(env.S3_ENDPOINT);
    const young = await client.send(
      new CreateMultipartUploadCommand({ Bucket: env.S3_BUCKET, Key: 'YYYYYYYYYYYYYYYYYYYYYY.bin' }),
    );
    client.destroy();
    ageUpload(crashed, 2);

    server = await startServerProcess({ ...env, DATA_DIR: tempDir() });

    expect(openUploads()).toEqual([young.UploadId]);
    expect(await bucketKeys(env)).toEqual([]);
    const swept = server
      .stdoutLines()
      .map((line) => JSON.parse(line))
      .find((entry) => String(entry.msg).startsWith('swept leftovers'));
    expect(swept).toMatchObject({ incomplete: 1, orphans: 0 });
  });
});
