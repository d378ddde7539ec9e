// The service on PostgreSQL + S3, over real HTTP: that it really runs on them, and a
// file large enough for a multipart upload. The API, sharing and hardening suites run on this
// backend too (the `postgres-s3` vitest project); this file holds what only it checks.
import { createHash } from 'node:crypto';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, type TestApp } from '../helpers/app';
import { clientFor } from '../helpers/buckets';
import { postgresS3Env } from '../helpers/test-backend';

let app: TestApp;
let env: Record<string, string>;
/** To look into the bucket from outside the service. */
let s3: S3Client;
let cookie: string;

beforeAll(async () => {
  env = await postgresS3Env();
  s3 = clientFor(env.S3_ENDPOINT);
  app = await startApp(env);
  await app.createUser('pat');
  cookie = await app.login('pat');
});
afterAll(async () => {
  await app.close();
  s3.destroy();
});

async function upload(content: Uint8Array | string, name: string) {
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie },
    body: fileForm(content, name),
  });
  return {
    status: res.status,
    body: (await res.json()) as { file: { id: string; storedName: string; size: number }; url: string },
  };
}

describe('PostgreSQL + S3', () => {
  it('when the app runs on them, then it is PostgreSQL and S3 that it uses, and /healthz is 200', async () => {
    expect(app.config.database.dialect).toBe('postgresql');
    expect(app.config.storage.kind).toBe('s3');
    expect((await app.rows('select version() as v'))[0].v).toMatch(/PostgreSQL/);
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('when a 20 MiB file is uploaded, then its record is in PostgreSQL, its object in the bucket, and it downloads byte-exact, whole and by range', {
    timeout: 60_000,
  }, async () => {
    const content = new Uint8Array(20 * 1024 * 1024).map((_, i) => (i * 7) % 256);
    const { status, body } = await upload(content, 'big.bin');
    expect(status).toBe(201);
    expect(body.file.size).toBe(content.length);

    expect(await app.rows('select stored_name, size from files where id = ?', [body.file.id])).toEqual([
      { stored_name: body.file.storedName, size: content.length },
    ]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: env.S3_BUCKET, Key: body.file.storedName }));
    expect(head.ContentLength).toBe(content.length);

    const whole = await fetch(`${app.url}/f/${body.file.id}/raw`);
    expect(whole.status).toBe(200);
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(sha(new Uint8Array(await whole.arrayBuffer()))).toBe(sha(content));

    const part = await fetch(`${app.url}/f/${body.file.id}/raw`, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${content.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from(content.subarray(1000, 2000)));
  });
});
