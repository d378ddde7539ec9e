// Fresh buckets on the run's S3 server (tests/global-setup.ts), one per test app or store,
// and a look into them from outside the service.
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { inject } from 'vitest';

/** s3rver checks no credentials; these are what the service is given too. */
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export function clientFor(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: KEYS });
}

/** The S3_* environment of a new, empty bucket. */
export async function freshBucketEnv(): Promise<Record<string, string>> {
  const endpoint = inject('s3Endpoint');
  const bucket = `t-${randomBytes(6).toString('hex')}`;
  const client = clientFor(endpoint);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    S3_BUCKET: bucket,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: KEYS.accessKeyId,
    S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
  };
}

/** The object keys in the bucket of `env`, the service's write probes left out. */
export async function bucketKeys(env: Record<string, string>): Promise<string[]> {
  const client = clientFor(env.S3_ENDPOINT);
  try {
    const listing = await client.send(new ListObjectsV2Command({ Bucket: env.S3_BUCKET }));
    return (listing.Contents ?? [])
      .map((object) => object.Key!)
      .filter((key) => !key.startsWith('.'))
      .sort();
  } finally {
    client.destroy();
  }
}

/** Puts an object straight into the bucket of `env`, behind the service's back. */
export async function putObject(env: Record<string, string>, key: string, body: string): Promise<void> {
  const client = clientFor(env.S3_ENDPOINT);
  try {
    await client.send(new PutObjectCommand({ Bucket: env.S3_BUCKET, Key: key, Body: body }));
  } finally {
    client.destroy();
  }
}
