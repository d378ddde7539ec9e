// Fresh buckets on the run's S3 server (tests/global-setup.ts), one per test app or store.
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';

/** The S3_* environment of a new, empty bucket. */
export async function freshBucketEnv(): Promise<Record<string, string>> {
  const endpoint = inject('s3Endpoint');
  const bucket = `t-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };
}
