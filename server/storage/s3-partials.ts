// Resumable content in an S3-compatible bucket, over the multipart API (ADR 0019). Each upload
// is one multipart upload at its final key: nothing is readable there until it is completed.
// The parts uploaded so far are recorded in the state the caller keeps in the database, never
// asked from the bucket (ListParts is not there on every S3 server). S3 wants every part but
// the last to be at least 5 MiB, so bytes that end a request short of a part wait in a small
// "tail" object, and the next request starts its first part with them.
//
// The recorded state and the objects can never disagree: every tail is written under a key of
// its own (a crash or a lost record leaves the recorded tail as it was), and only the recorded
// number of bytes of the recorded tail is ever read back (ADR 0019).
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  isSafeKey,
  StorageUnavailableError,
  type AppendOptions,
  type PartialContentStore,
  type PartialProgress,
} from './content-store';
import { PART_BYTES, PartAssembler } from './part-assembler';
import { receivedChunks } from './received-chunks';

/** S3's smallest part but the last, and its largest number of parts. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;
/** Tails live under this prefix, which is never a stored name (the orphan sweep ignores it). */
const TAIL_PREFIX = '.resumable/';

interface PartRecord {
  /** Part number (1-based) and the ETag S3 gave it: what completing the upload needs. */
  n: number;
  etag: string;
  size: number;
}

interface S3PartialState {
  uploadId: string;
  parts: PartRecord[];
  /** Bytes received after the last part, waiting in an object of their own. */
  tail: { key: string; size: number } | null;
}

export class S3Partials implements PartialContentStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async begin(key: string): Promise<string> {
    const created = await this.guard(() =>
      this.client.send(
        new CreateMultipartUploadCommand({
          Bucket: this.bucket,
          Key: checked(key),
          ContentType: 'application/octet-stream',
        }),
      ),
    );
    if (!created.UploadId) throw new StorageUnavailableError('The bucket did not start a multipart upload');
    return JSON.stringify({ uploadId: created.UploadId, parts: [], tail: null } satisfies S3PartialState);
  }

  async append(
    key: string,
    from: PartialProgress,
    content: Readable,
    options: AppendOptions,
  ): Promise<PartialProgress> {
    const state = parseState(from.state);
    if (recordedSize(state) !== from.size)
      throw new Error(`Recorded progress ${from.size} does not match its parts and tail (${recordedSize(state)})`);
    const partBytes = Math.max(PART_BYTES, Math.ceil(options.length / MAX_PARTS));
    const assembler = new PartAssembler(partBytes);
    // The tail's bytes start the next part; until that part is stored, the tail still holds them.
    // (A tail is shorter than a part, so it never fills one by itself.)
    if (state.tail) assembler.add(await this.readTail(state.tail));
    // Tails written by requests whose progress was never recorded are of no use to anyone.
    await this.removeTails(key, state.tail?.key).catch(() => undefined);
    const parts = [...state.parts];
    const partsSize = () => parts.reduce((sum, part) => sum + part.size, 0);
    let received = from.size;
    let nextPartNumber = parts.length + 1;
    let uploading: Promise<void> | null = null;

    /** Uploads one part; it is recorded (in order) once the part before it is. */
    const uploadPart = (body: Buffer, release: () => void): Promise<void> => {
      const n = nextPartNumber++;
      const previous = uploading;
      const done = (async () => {
        try {
          const part = await this.guard(() =>
            this.client.send(
              new UploadPartCommand({
                Bucket: this.bucket,
                Key: key,
                UploadId: state.uploadId,
                PartNumber: n,
                Body: body,
              }),
            ),
          );
          await previous;
          parts.push({ n, etag: part.ETag ?? '', size: body.length });
          await options.checkpoint({ size: partsSize(), state: JSON.stringify({ ...state, parts, tail: null }) });
        } finally {
          release();
        }
      })();
      // Awaited below; when an earlier part failed first, its failure is the one reported.
      done.catch(() => undefined);
      return done;
    };

    try {
      for await (const chunk of receivedChunks(content)) {
        received += chunk.length;
        let full = assembler.add(chunk);
        while (full) {
          // Two parts on their way at most while the next fills (each waits for the one before it).
          const previous = uploading;
          uploading = uploadPart(full.body, full.release);
          if (previous) await previous;
          full = assembler.takeFull();
        }
      }
      if (uploading) await uploading;
      uploading = null;

      const rest = assembler.takeRest();
      const isLast = received === options.length;
      let tail: S3PartialState['tail'] = null;
      if (rest.length > 0 && (isLast || rest.length >= MIN_PART_BYTES)) {
        await uploadPart(rest, () => undefined);
      } else if (rest.length > 0) {
        // A new object per tail, never the recorded one's key: that one stays as it is until the
        // caller records this one, also when the process dies or the record fails in between.
        const tailKey = `${TAIL_PREFIX}${key}.${partsSize()}.${randomBytes(8).toString('hex')}`;
        await this.guard(() =>
          this.client.send(
            new PutObjectCommand({ Bucket: this.bucket, Key: tailKey, Body: rest, ContentLength: rest.length }),
          ),
        );
        tail = { key: tailKey, size: rest.length };
      }
      const size = partsSize() + (tail?.size ?? 0);
      if (size !== received) throw new Error(`Stored ${size} bytes where ${received} were received`);
      return { size, state: JSON.stringify({ ...state, parts, tail } satisfies S3PartialState) };
    } catch (error) {
      // The last part waits for every part before it: once it settles, none is still sending.
      await uploading?.catch(() => undefined);
      throw error;
    } finally {
      assembler.dispose();
    }
  }

  async finish(key: string, progress: PartialProgress): Promise<void> {
    const state = parseState(progress.state);
    if (state.tail) throw new Error('Cannot finish partial content with bytes still in its tail');
    if (state.parts.length === 0) {
      // Empty content: a multipart upload needs at least one part, so a plain empty object instead.
      await this.guard(() =>
        this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: checked(key), Body: '', ContentLength: 0 })),
      );
      await this.abort(key, state.uploadId);
    } else {
      await this.guard(() =>
        this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: checked(key),
            UploadId: state.uploadId,
            MultipartUpload: { Parts: state.parts.map((part) => ({ PartNumber: part.n, ETag: part.etag })) },
          }),
        ),
      );
    }
    await this.removeTails(key);
  }

  async discard(key: string, stateText: string): Promise<void> {
    const state = stateText ? parseState(stateText) : null;
    try {
      if (state) await this.abort(key, state.uploadId);
    } finally {
      // The tails are plain objects of their own: they go even when the abort fails.
      await this.removeTails(key);
    }
  }

  private async abort(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(
        new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: checked(key), UploadId: uploadId }),
      );
    } catch (error) {
      // Already completed or aborted: nothing left to remove.
      if ((error as { name?: string }).name !== 'NoSuchUpload') throw error;
    }
  }

  /** Every tail object of `key` but `keep`: the recorded one and any written after it. */
  private async removeTails(key: string, keep?: string): Promise<void> {
    const listing = await this.guard(() =>
      this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${TAIL_PREFIX}${checked(key)}.` })),
    );
    for (const object of listing.Contents ?? []) {
      const tailKey = object.Key;
      if (tailKey && tailKey !== keep)
        await this.guard(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: tailKey })));
    }
  }

  /** The recorded bytes of the recorded tail, never more: an object that holds fewer is refused. */
  private async readTail(tail: { key: string; size: number }): Promise<Buffer> {
    const object = await this.guard(() =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: tail.key, Range: `bytes=0-${tail.size - 1}` })),
    );
    if (!object.Body) throw new StorageUnavailableError("A resumable upload's tail came back without a body");
    const bytes = Buffer.from(await object.Body.transformToByteArray());
    if (bytes.length !== tail.size)
      throw new StorageUnavailableError(
        `A resumable upload's tail holds ${bytes.length} bytes where ${tail.size} were recorded`,
      );
    return bytes;
  }

  /** The bucket's failures as the store contract names them. */
  private async guard<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw new StorageUnavailableError(
        `The bucket refused a resumable upload step: ${error instanceof Error ? error.name : String(error)}`,
      );
    }
  }
}

function checked(key: string): string {
  if (!isSafeKey(key)) throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
  return key;
}

/** The bytes a state accounts for: its parts and its tail. */
function recordedSize(state: S3PartialState): number {
  return state.parts.reduce((sum, part) => sum + part.size, 0) + (state.tail?.size ?? 0);
}

function parseState(text: string): S3PartialState {
  return JSON.parse(text) as S3PartialState;
}
