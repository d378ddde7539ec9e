// One object written from a stream (ADR 0012, ADR 0023): content that fits in one part is one
// PutObject; anything larger is a multipart upload of 8 MiB parts, two on their way while the
// next fills, copied into three reused buffers (one on its way saved 8 MiB of the peak and lost
// a tenth of the speed against s3rver, docs/performance.md). The object only appears once the upload is
// completed; a failed upload is aborted, so nothing stays behind in the bucket.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { bodyCollectionPacer } from '../young-collection-pacer';
import { ContentTooLargeError, StorageUnavailableError, type WriteOptions, type WrittenContent } from './content-store';
import { FirstBytes } from './first-bytes';
import { PART_BYTES, PartAssembler, type AssembledPart } from './part-assembler';

/** PART_BYTES × (PARTS_ON_THEIR_WAY + 1) is what an upload holds in memory. */
const PARTS_ON_THEIR_WAY = 2;
/** A small upload's buffer starts at this size (a 4 KiB screenshot never takes 8 MiB). */
const FIRST_BUFFER_BYTES = 64 * 1024;
const CONTENT_TYPE = 'application/octet-stream';

export interface ObjectTarget {
  client: S3Client;
  bucket: string;
  key: string;
}

/**
 * Writes `content` as the object at `target.key`. Rejects with ContentTooLargeError as soon as
 * more than `maxBytes` arrived, with the content's own error when it fails (a client gone), and
 * with StorageUnavailableError when the bucket fails; the content stops being read either way.
 */
export async function uploadObject(
  target: ObjectTarget,
  content: Readable,
  options: WriteOptions,
): Promise<WrittenContent> {
  const { maxBytes } = options;
  const assembler = new PartAssembler(PART_BYTES, FIRST_BUFFER_BYTES);
  const parts = new MultipartUpload(target);
  let size = 0;
  let crc = 0;
  const firstBytes = new FirstBytes();
  try {
    for await (const chunk of content as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw new ContentTooLargeError('File too large');
      crc = crc32(chunk, crc);
      firstBytes.add(chunk);
      bodyCollectionPacer.bytesPassed(chunk.length);
      for (let part = assembler.add(chunk); part; part = assembler.takeFull()) await parts.send(part);
    }
    const rest = assembler.takeRest();
    if (parts.started) {
      if (rest.length > 0) await parts.send({ body: rest, release: () => undefined });
      // Before the object exists: a refusal aborts the multipart upload instead.
      await options.beforeCommit?.();
      await parts.complete();
    } else {
      await options.beforeCommit?.();
      const { client, bucket, key } = target;
      await bucketStep(() =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: rest,
            ContentLength: rest.length,
            ContentType: CONTENT_TYPE,
          }),
        ),
      );
    }
    return { size, crc32: crc, firstBytes: firstBytes.bytes() };
  } catch (error) {
    await parts.abort();
    throw error;
  } finally {
    assembler.dispose();
  }
}

/** A multipart upload started with its first part; parts are numbered in the order sent. */
class MultipartUpload {
  private uploadId: string | null = null;
  private readonly completed: { PartNumber: number; ETag: string }[] = [];
  private onTheirWay: Promise<void>[] = [];
  private nextNumber = 1;

  constructor(private readonly target: ObjectTarget) {}

  get started(): boolean {
    return this.uploadId !== null;
  }

  /** Starts sending a part, after waiting for a place among those on their way. */
  async send(part: AssembledPart): Promise<void> {
    while (this.onTheirWay.length >= PARTS_ON_THEIR_WAY) await this.onTheirWay.shift();
    const { client, bucket, key } = this.target;
    if (!this.uploadId) {
      const created = await bucketStep(() =>
        client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: CONTENT_TYPE })),
      );
      if (!created.UploadId) throw new StorageUnavailableError('The bucket did not start a multipart upload');
      this.uploadId = created.UploadId;
    }
    const PartNumber = this.nextNumber++;
    const UploadId = this.uploadId;
    const sending = bucketStep(() =>
      client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: part.body })),
    )
      .then((sent) => void this.completed.push({ PartNumber, ETag: sent.ETag ?? '' }))
      .finally(part.release);
    // Awaited in turn (or by complete/abort); a failure is reported there, never unhandled.
    sending.catch(() => undefined);
    this.onTheirWay.push(sending);
  }

  async complete(): Promise<void> {
    await Promise.all(this.onTheirWay.splice(0));
    const { client, bucket, key } = this.target;
    const Parts = [...this.completed].sort((a, b) => a.PartNumber - b.PartNumber);
    const UploadId = this.uploadId;
    if (!UploadId) throw new Error('A multipart upload is completed only after its first part');
    await bucketStep(() =>
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts },
        }),
      ),
    );
  }

  /** Aborts once no part is on its way any more (a part arriving after the abort would stay). */
  async abort(): Promise<void> {
    await Promise.allSettled(this.onTheirWay.splice(0));
    if (!this.uploadId) return;
    const { client, bucket, key } = this.target;
    await client
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId }))
      .catch(() => undefined);
  }
}

/** A bucket failure as the store contract names it. */
async function bucketStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new StorageUnavailableError(`The bucket did not take the upload: ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.split('\n')[0] : String(error);
}
