// The CRC-32 an archive entry's headers carry (ADR 0036), computed once from the stored content:
// for files recorded before uploads computed it themselves.
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

/** The CRC-32 (as ZIP records it) and length of everything `content` yields, read chunk by chunk. */
export async function contentCrc32(content: Readable): Promise<{ crc32: number; size: number }> {
  let value = 0;
  let size = 0;
  for await (const chunk of content) {
    const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    value = crc32(bytes, value);
    size += bytes.length;
  }
  return { crc32: value, size };
}
