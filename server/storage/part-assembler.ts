/** The part size both S3 paths use (S3 allows 10,000 parts: 78 GiB in parts of this size). */
export const PART_BYTES = 8 * 1024 * 1024;

/**
 * Part buffers of PART_BYTES kept between uploads, at most what one upload has at once. An
 * upload's buffers live long enough to reach the old generation, and with paced young
 * collections (ADR 0023) full ones come seldom: without the pool each large upload's buffers
 * stayed until then, and the next upload's came on top.
 */
const KEPT_PART_BUFFERS = 3;
const keptPartBuffers: Buffer[] = [];

function newPartBuffer(bytes: number): Buffer {
  return (bytes === PART_BYTES && keptPartBuffers.pop()) || Buffer.allocUnsafe(bytes);
}

function keepPartBuffer(buffer: Buffer): void {
  if (buffer.length === PART_BYTES && keptPartBuffers.length < KEPT_PART_BUFFERS) keptPartBuffers.push(buffer);
}

/** A part ready for the bucket; `release` gives its buffer back once the bucket has it. */
export interface AssembledPart {
  body: Buffer;
  release: () => void;
}

/**
 * Gathers request chunks into parts of exactly `partBytes`, copied into reused buffers (the one
 * filling and those on their way to the bucket), instead of keeping the chunks until a part is
 * full and concatenating them: a kept chunk outlives young-generation collections and is freed
 * only by a full one (ADR 0023). The first buffer starts at `firstBytes` and doubles as it
 * fills, so content far smaller than a part never holds a whole part's memory. A buffer is taken
 * only when bytes arrive for it: a part waiting for its turn does not make a new one filled.
 * That holds within a chunk too: the bytes of a chunk past a full part wait (as a view of the
 * chunk) until that part has been taken, so the caller sends it, and waits for a place, before
 * they need a buffer (copied at once, they took a fourth part buffer whenever a chunk straddled
 * a part's end while two were on their way: 8 MiB more at the peak).
 */
export class PartAssembler {
  private current: Buffer | null;
  private filled = 0;
  private readonly spare: Buffer[] = [];
  /** A full part not taken yet (one at most: copying stops at the first that fills). */
  private full: Buffer | null = null;
  /** The bytes of the last chunk not copied yet: they come after the full part. */
  private waiting: Uint8Array | null = null;

  constructor(
    private readonly partBytes: number,
    firstBytes = partBytes,
  ) {
    this.current = firstBytes >= partBytes ? newPartBuffer(partBytes) : Buffer.allocUnsafe(firstBytes);
  }

  /**
   * Adds bytes; returns a full part when there is one. Call takeFull() until it returns null
   * before adding more: it copies the rest of the chunk, and returns the parts it fills.
   */
  add(chunk: Uint8Array): AssembledPart | null {
    if (this.waiting) throw new Error('PartAssembler: the previous chunk is not all taken yet');
    this.waiting = chunk;
    return this.takeFull();
  }

  takeFull(): AssembledPart | null {
    if (!this.full) this.copyWaiting();
    const body = this.full;
    if (!body) return null;
    this.full = null;
    return { body, release: () => void this.spare.push(body) };
  }

  /** The bytes short of a part (copied: the buffer they are in is reused). */
  takeRest(): Buffer {
    if (this.waiting || this.full) throw new Error('PartAssembler: parts are still to be taken');
    const rest = Buffer.from(this.current?.subarray(0, this.filled) ?? []);
    this.filled = 0;
    return rest;
  }

  /**
   * Gives the buffers back for other uploads, once no part is on its way any more (a part
   * released later is left to the garbage collector). The assembler is not used again.
   */
  dispose(): void {
    for (const buffer of this.spare.splice(0)) keepPartBuffer(buffer);
    if (this.current) keepPartBuffer(this.current);
    this.current = null;
    this.filled = 0;
  }

  /** Copies the waiting bytes until they end or fill a part (which is then `full`). */
  private copyWaiting(): void {
    const chunk = this.waiting;
    if (!chunk) return;
    let offset = 0;
    while (offset < chunk.length) {
      const current = this.bufferWithRoom();
      const copied = Math.min(chunk.length - offset, current.length - this.filled);
      current.set(chunk.subarray(offset, offset + copied), this.filled);
      this.filled += copied;
      offset += copied;
      if (this.filled === this.partBytes) {
        this.full = current;
        this.current = null;
        this.filled = 0;
        break;
      }
    }
    this.waiting = offset < chunk.length ? chunk.subarray(offset) : null;
  }

  /** The buffer filling, with room for at least one more byte. */
  private bufferWithRoom(): Buffer {
    if (!this.current) this.current = this.spare.pop() ?? newPartBuffer(this.partBytes);
    else if (this.filled === this.current.length) {
      // Only a first buffer smaller than a part is ever full without making a part.
      const larger =
        this.current.length * 2 >= this.partBytes
          ? newPartBuffer(this.partBytes)
          : Buffer.allocUnsafe(this.current.length * 2);
      this.current.copy(larger, 0, 0, this.filled);
      this.current = larger;
    }
    return this.current;
  }
}
