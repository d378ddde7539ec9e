import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { ContentTooLargeError } from './content-store';
import { FirstBytes } from './first-bytes';

/**
 * Counts bytes as they pass, their CRC-32 and the first of them, and fails the write as soon as there are more
 * than allowed. It holds one socket read's worth of chunks ahead (64 KiB): the file stream
 * after it is the one that gathers them into large writes, and every chunk a stage keeps
 * waiting is memory an upload holds (ADR 0053).
 */
export class ByteCounter extends Transform {
  bytes = 0;
  crc32 = 0;
  readonly firstBytes = new FirstBytes();

  constructor(
    private readonly maxBytes: number,
    private readonly onProgress: (bytes: number) => void = () => {},
  ) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new ContentTooLargeError('File too large'));
      return;
    }
    this.crc32 = crc32(chunk, this.crc32);
    this.firstBytes.add(chunk);
    this.onProgress(this.bytes);
    callback(null, chunk);
  }
}
