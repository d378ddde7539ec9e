// The service on PostgreSQL + S3 (issue 13), over real HTTP: the same answers as on SQLite and
// a disk, with the records in PostgreSQL and the content as objects in the bucket.
import { createHash } from 'node:crypto';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, fileForm, startApp, type TestApp } from '../helpers/app';
import { postgresS3Env } from '../helpers/test-backend';
import { bucketKeys } from '../helpers/buckets';

let app: TestApp;
let env: Record<string, string>;
/** To look into the bucket from outside the service. */
let s3: S3Client;
let cookie: string;

beforeAll(async () => {
  env = await postgresS3Env();
  s3 = new S3Client({ endpoint: env.S3_ENDPOINT, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  app = await startApp({ ...env, TRUST_PROXY: 'true' });
  await app.createUser('pat');
  cookie = await app.login('pat');
});
afterAll(async () => {
  await app.close();
  s3.destroy();
});

async function upload(content: Uint8Array | string, name: string) {
  const res = await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: fileForm(content, name) });
  return { status: res.status, body: (await res.json()) as { file: { id: string; storedName: string; size: number }; url: string } };
}

describe('PostgreSQL + S3', () => {
  it('when the app runs on them, then it is PostgreSQL and S3 that it uses, and /healthz is 200', async () => {
    expect(app.config.database.dialect).toBe('postgresql');
    expect(app.config.storage.kind).toBe('s3');
    expect((await app.rows('select version() as v'))[0].v).toMatch(/PostgreSQL/);
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('when a 20 MiB file is uploaded, then its record is in PostgreSQL, its object in the bucket, and it downloads byte-exact, whole and by range', { timeout: 60_000 }, async () => {
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

  it('when files are listed and one is deleted, then the list is newest first and the object and the share link are gone', async () => {
    const first = await upload('first', 'first.txt');
    const second = await upload('second', 'second.txt');
    const listed = (await (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).json()) as { files: Array<{ id: string; size: number }> };
    expect(listed.files.slice(0, 2).map((file) => file.id)).toEqual([second.body.file.id, first.body.file.id]);
    expect(listed.files[0].size).toBe(6);

    const deleted = await fetch(`${app.url}/api/v1/files/${first.body.file.id}`, { method: 'DELETE', headers: { cookie } });
    expect(deleted.status).toBe(200);
    expect(await bucketKeys(env)).not.toContain(first.body.file.storedName);
    expect(await bucketKeys(env)).toContain(second.body.file.storedName);
    expect((await fetch(`${app.url}/f/${first.body.file.id}/raw`)).status).toBe(404);
    expect(await app.rows('select id from files where id = ?', [first.body.file.id])).toEqual([]);
  });

  it('when an upload is too large, then 413 and no object or row is left', async () => {
    const smallEnv = { ...(await postgresS3Env()), MAX_UPLOAD_BYTES: String(1024 * 1024) };
    const small = await startApp(smallEnv);
    try {
      await small.createUser('limited');
      const limitedCookie = await small.login('limited');
      const res = await fetch(`${small.url}/api/v1/files`, {
        method: 'POST',
        headers: { cookie: limitedCookie },
        body: fileForm(new Uint8Array(3 * 1024 * 1024), 'too-big.bin'),
      });
      expect(res.status).toBe(413);
      expect(await small.rows('select count(*) as n from files')).toEqual([{ n: 0 }]);
      expect(await bucketKeys(smallEnv)).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('when a user logs out, then the token stops working; when one username fails five times from one address, then that address gets 429 but another logs in', async () => {
    const session = await app.login('pat');
    await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: session } });
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie: session } })).status).toBe(401);

    const attempt = (password: string, from: string) =>
      fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
        body: JSON.stringify({ username: 'pat', password }),
      });
    for (let i = 0; i < 5; i++) expect((await attempt('wrong', '203.0.113.9')).status).toBe(401);
    expect((await attempt(DEFAULT_PASSWORD, '203.0.113.9')).status).toBe(429);
    expect((await attempt(DEFAULT_PASSWORD, '203.0.113.10')).status).toBe(200);
  });
});
