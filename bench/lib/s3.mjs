// The S3 side of the s3 phase: the bare SDK, configured as the service's store, and what its
// measures share.
import { MiB } from './settings.mjs';

// Settings as in server/storage/s3-store.ts:
export const S3_PART_BYTES = 8 * MiB;
export const S3_QUEUE_SIZE = 2;
export const S3_BUCKET = 'bench';
/** s3rver checks no credentials; these are the ones the tests give the service too. */
export const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The bare SDK, configured as the service's store: same endpoint style and checksum settings. */
export async function bareSdk(endpoint) {
  const { S3Client, CreateBucketCommand, GetObjectCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const { Upload } = await import('@aws-sdk/lib-storage');
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: S3_KEYS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { client, Upload, commands: { CreateBucketCommand, GetObjectCommand, HeadObjectCommand } };
}

/** CPU seconds this process used since `before` (a process.cpuUsage() value). */
export const ownCpuSince = (before) => {
  const { user, system } = process.cpuUsage(before);
  return { cpuS: (user + system) / 1e6 };
};

/** Reads a response body to its end without keeping it; resolves with its length. */
export function countAndDiscard(body) {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    body.on('data', (chunk) => {
      bytes += chunk.length;
    });
    body.on('end', () => resolve(bytes));
    body.on('error', reject);
  });
}
