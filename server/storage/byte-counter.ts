import { Transform, type TransformCallback } from 'node:stream';
import { ContentTooLargeError } from './content-store';

/** Counts bytes as they pass and fails the write as soon as there are more than allowed. */
export class ByteCounter extends Transform {
  bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onProgress: (bytes: number) => void = () => {},
    highWaterMark = 1024 * 1024,
  ) {
    super({ highWaterMark });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(new ContentTooLargeError('File too large'));
    this.onProgress(this.bytes);
    callback(null, chunk);
  }
}
