import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { ContentTooLargeError } from './content-store';

/**
 * Counts bytes as they pass, and their CRC-32, and fails the write as soon as there are more
 * than allowed.
 */
export class ByteCounter extends Transform {
  bytes = 0;
  crc32 = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onProgress: (bytes: number) => void = () => {},
    highWaterMark = 1024 * 1024,
  ) {
    super({ highWaterMark });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new ContentTooLargeError('File too large'));
      return;
    }
    this.crc32 = crc32(chunk, this.crc32);
    this.onProgress(this.bytes);
    callback(null, chunk);
  }
}
