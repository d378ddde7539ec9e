// Asks V8 for a young-generation collection every few MiB of streamed body (ADR 0023): the
// uploads that copy their chunks into reused buffers (resumable uploads, uploads to S3) and the
// downloads that pass a bucket's answer on.
//
// node:http hands each body chunk over as a fresh buffer. Its bytes live outside V8's heap and
// are freed when a young-generation collection (a scavenge) finds the buffer dead; until then
// V8 counts them as external memory allocated since the last full collection, against the old
// generation's room. The server runs with --heap-growing-percent=25 (ADR 0020), which leaves
// that room at about 8 MB, while the few small objects per chunk fill the 2 MiB young
// generation (ADR 0007) only every 25-50 MiB of body. So a full-speed upload started a full
// collection every 8-12 MiB: 40-70 per GiB, ~80 ms of CPU each (mostly concurrent marking on
// the second core). A scavenge of a young generation with almost nothing alive costs a fraction
// of a millisecond and frees those buffers before they count.
//
// The bytes are counted over all requests together: concurrent uploads share one pace, not one
// each. Without --expose-gc (a server started without SERVER_NODE_FLAGS; the tests run with
// them, vitest.config.ts) there is no `gc` and this does nothing.

/** Body bytes between two requested young-generation collections (a quarter of the ~8 MB of room). */
export const YOUNG_COLLECTION_EVERY_BYTES = 2 * 1024 * 1024;

type Collect = () => void;

const exposedGc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
const collectYoungGeneration: Collect | null = exposedGc ? () => exposedGc({ type: 'minor' }) : null;

export class YoungCollectionPacer {
  private bytesSinceCollection = 0;

  constructor(
    private readonly collect: Collect | null,
    private readonly everyBytes = YOUNG_COLLECTION_EVERY_BYTES,
  ) {}

  /** Notes body bytes that went by; collects once `everyBytes` have, counted from the last time. */
  bytesPassed(bytes: number): void {
    if (!this.collect) return;
    this.bytesSinceCollection += bytes;
    if (this.bytesSinceCollection < this.everyBytes) return;
    this.bytesSinceCollection = 0;
    this.collect();
  }
}

/** The process's one pace, for every streamed body. */
export const bodyCollectionPacer = new YoungCollectionPacer(collectYoungGeneration);
