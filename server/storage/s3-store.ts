// Content in an S3-compatible bucket, one object per key (ADR 0012). Uploads stream through a
// multipart upload of bounded memory (a few parts at a time) and an object only appears once
// complete; a failed upload is aborted, so no ghost objects. Reads are (ranged) GETs streamed
// through the service: the bucket may stay private.
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
import { state as sdkNodeVersionNotice } from '@aws-sdk/core/client';
import { Upload } from '@aws-sdk/lib-storage';
import type { Logger } from 'pino';
import { libraryLogger } from '../library-logs';
import { ByteCounter } from './byte-counter';
import { S3Partials } from './s3-partials';
import {
  ContentNotFoundError,
  StorageUnavailableError,
  isSafeKey,
  type ByteRange,
  type ContentStat,
  type ContentStore,
  type OpenedContent,
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

/** Size of each uploaded part; PART_BYTES × QUEUE_SIZE is what an upload holds in memory. */
const PART_BYTES = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
const PROBE_PREFIX = '.healthz/';

export class S3Store implements ContentStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  readonly partial: S3Partials;

  /** `log` receives the SDK's own warnings (it would print them on the console). */
  constructor(options: S3StoreOptions, log: Logger) {
    // On Node 20 the SDK prints a multi-line plain-text notice on stderr (newer SDK releases
    // will need Node 22): it would break the JSON log lines and the CLIs' one-line errors. The
    // SDK's own once-only flag, set beforehand, keeps it quiet. The container runs Node 22 and
    // the lock file pins the SDK (ADR 0012).
    sdkNodeVersionNotice.warningEmitted = true;
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

  async write(key: string, content: Readable, options: { maxBytes: number }): Promise<{ size: number }> {
    const counter = new ByteCounter(options.maxBytes);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: counter, ContentType: 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    const feeding = pipeline(content, counter);
    const uploading = upload.done();
    // A bucket that fails stops reading: end the feeding too, or it would wait for good. When
    // the content failed first, the counter is already destroyed by then.
    let bucketFailedFirst = false;
    uploading.catch((error: unknown) => {
      if (counter.destroyed) return;
      bucketFailedFirst = true;
      counter.destroy(error instanceof Error ? error : new Error(String(error)));
    });
    const [fed, uploaded] = await Promise.allSettled([feeding, uploading]);
    if (fed.status === 'fulfilled' && uploaded.status === 'fulfilled') return { size: counter.bytes };

    // Nothing may stay behind: the multipart upload is aborted (lib-storage does it on error;
    // once more does no harm) and an object that did complete after all is removed.
    await upload.abort().catch(() => undefined);
    if (uploaded.status === 'fulfilled') await this.delete(key).catch(() => undefined);
    // The content's own failure (too large, the client went away) is the one to report.
    if (fed.status === 'rejected' && !bucketFailedFirst) throw fed.reason;
    throw new StorageUnavailableError(`The bucket did not take the upload: ${describe(uploaded.status === 'rejected' ? uploaded.reason : null)}`);
  }

  async open(key: string, range?: ByteRange): Promise<OpenedContent> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      const stream = object.Body as Readable;
      return { stream, pipeTo: (destination: Writable) => pipeline(stream, destination) };
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
        if (object.Key && isSafeKey(object.Key) && object.LastModified && object.LastModified < options.modifiedBefore) keys.push(object.Key);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /**
   * Multipart uploads left open by a crash, but not those of resumable uploads still alive
   * (`keep`). Servers without ListMultipartUploads (s3rver) have none to report.
   */
  async sweepIncomplete(options: { modifiedBefore: Date; keep?: ReadonlySet<string> }): Promise<number> {
    let removed = 0;
    try {
      const listing = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket }));
      for (const upload of listing.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= options.modifiedBefore) continue;
        if (options.keep?.has(upload.Key)) continue;
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
        removed++;
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

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.split('\n')[0] : String(error);
}
