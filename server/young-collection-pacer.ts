// Asks V8 for a young-generation collection every few MiB of streamed body (ADR 0023): uploads
// to S3, which copy their chunks into reused part buffers, the downloads that pass a bucket's
// answer on, and refused bodies read to their end and dropped.
//
// node:http hands each body chunk over as a fresh buffer. Its bytes live outside V8's heap and
// are freed when a collection finds the buffer dead; until then V8 counts them as external
// memory against the old generation's room (twice the live heap, ADR 0052). The few small
// objects per chunk fill the young generation slowly: even with the collection V8 schedules at
// 30 % of its 1 MiB (20 % now, ADR 0053), a 1 GiB download from a bucket, whose chunks nothing
// else holds, peaked ~10 MB higher without these collections. A scavenge of a young generation
// with almost nothing alive costs a fraction of a millisecond.
//
// The bytes are counted over all requests together: concurrent bodies share one pace, not one
// each. Without --expose-gc (a server started without SERVER_NODE_FLAGS; the tests run with
// them, vitest.config.ts) there is no `gc` and this does nothing.

/** Body bytes between two requested young-generation collections. */
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
