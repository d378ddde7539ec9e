import { FIRST_BYTES_KEPT } from './content-store';

/**
 * The first FIRST_BYTES_KEPT bytes of content, copied as its chunks pass on their way into the
 * store: a file's type is read from them (ADR 0064) without reading the content again.
 */
export class FirstBytes {
  private readonly kept: Buffer[] = [];
  private length = 0;

  add(chunk: Buffer): void {
    if (this.length >= FIRST_BYTES_KEPT) return;
    // A copy: the chunk's memory may be reused once it has been written.
    const part = Buffer.from(chunk.subarray(0, FIRST_BYTES_KEPT - this.length));
    this.kept.push(part);
    this.length += part.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.kept, this.length);
  }
}
