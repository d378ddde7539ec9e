import type { Readable } from 'node:stream';

/**
 * The chunks of a request body until it ends or breaks off: a client that went away (or a body
 * cut at its limit) ends the partial content there, and what arrived is kept.
 */
export async function* receivedChunks(content: Readable): AsyncGenerator<Buffer> {
  const chunks = (content as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch {
        return;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Left early because the storage failed: stop reading the body too (a no-op once it ended).
    if (!content.readableEnded) content.destroy();
  }
}
