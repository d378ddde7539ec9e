// Content in an S3-compatible bucket, one object per key (ADR 0012). Uploads stream through a
// multipart upload of bounded memory (s3-object-upload.ts: three 8 MiB buffers, reused) and an
// object only appears once complete; a failed upload is aborted, so no ghost objects. Reads are (ranged) GETs streamed
// through the service: the bucket may stay private.
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { bodyCollectionPacer } from '../young-collection-pacer';
import { libraryLogger } from '../utilities/library-logs';
import { uploadObject } from './s3-object-upload';
import { sendContent } from './send-content';
import { S3Partials } from './s3-partials';
import {
  ContentNotFoundError,
  isSafeKey,
  type ByteRange,
  type ContentStat,
  type ContentStore,
  type OpenedContent,
  type PipeOptions,
  type WriteOptions,
  type WrittenContent,
} from './content-store';

export interface S3StoreOptions {
  bucket: string;
  region: string;
  /** For S3-compatible servers (MinIO, Ceph, Garage…); unset for AWS itself. */
  endpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

const PROBE_PREFIX = '.healthz/';
/** What a download's socket may hold before the bucket's answer waits for it. */
const DOWNLOAD_MAY_HOLD_BYTES = 1024 * 1024;

export class S3Store implements ContentStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  readonly partial: S3Partials;

  /** `log` receives the SDK's own warnings (it would print them on the console). */
  constructor(options: S3StoreOptions, log: Logger) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      logger: libraryLogger(log, 'aws-sdk', { errors: false }),
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      // Without these the SDK sends a streamed PutObject with aws-chunked framing and trailing
      // checksums, which S3-compatible servers store as part of the content (ADR 0012).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.partial = new S3Partials(this.client, this.bucket);
  }

  write(key: string, content: Readable, options: WriteOptions): Promise<WrittenContent> {
    return uploadObject({ client: this.client, bucket: this.bucket, key }, content, options);
  }

  async open(key: string, range?: ByteRange): Promise<OpenedContent> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const stream = object.Body as Readable;
      return {
        stream,
        // Each chunk from the bucket is a fresh buffer, freed by a scavenge (ADR 0023). The
        // client's socket may hold a few of them: with pipe's 16 KiB the bucket's connection
        // was paused and resumed for every 64 KiB chunk.
        pipeTo: (destination: Writable, options?: PipeOptions) =>
          sendContent(stream, destination, {
            passing: (chunk) => bodyCollectionPacer.bytesPassed(chunk.length),
            mayHold: DOWNLOAD_MAY_HOLD_BYTES,
            end: options?.end,
          }),
      };
    } catch (error) {
      if (isNotFound(error)) throw new ContentNotFoundError(`No content under ${key}`);
      throw error;
    }
  }

  async stat(key: string): Promise<ContentStat | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async list(options: { modifiedBefore: Date }): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key && isSafeKey(object.Key) && object.LastModified && object.LastModified < options.modifiedBefore)
          keys.push(object.Key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /**
   * Multipart uploads left open by a receiver that is gone, but not those whose key is in `keep`
   * (uploads still being received, resumable uploads still alive). Servers without
   * ListMultipartUploads have none to report.
   */
  async sweepIncomplete(options: { modifiedBefore: Date; keep?: ReadonlySet<string> }): Promise<number> {
    let removed = 0;
    try {
      const listing = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket }));
      for (const upload of listing.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= options.modifiedBefore)
          continue;
        if (options.keep?.has(upload.Key)) continue;
        try {
          await this.client.send(
            new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }),
          );
          removed++;
        } catch (error) {
          // Completed or aborted by its receiver since the listing: nothing left to remove.
          if (!(error instanceof S3ServiceException && error.name === 'NoSuchUpload')) throw error;
        }
      }
    } catch (error) {
      if (error instanceof S3ServiceException && error.name === 'NotImplemented') return 0;
      throw error;
    }
    return removed;
  }

  /** Really writes and removes a small object, as an upload would. */
  async checkWritable(): Promise<void> {
    const key = `${PROBE_PREFIX}${randomBytes(6).toString('hex')}`;
    // An explicit length: the SDK sends no Content-Length for an empty body otherwise (and warns).
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: '', ContentLength: 0 }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

function isNotFound(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata?.httpStatusCode === 404;
}
