import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface SendOptions {
  /** Called once the destination is done with a chunk (written, or the write abandoned). */
  taken?: (chunk: Buffer) => void;
  /** Called as each chunk goes by. */
  passing?: (chunk: Buffer) => void;
  /**
   * Bytes the destination may hold before the next chunk waits for it to drain. 0: wait
   * whenever a write says so (the destination's own high-water mark, 16 KiB for a socket).
   */
  mayHold?: number;
}

/**
 * Streams content into a destination (a response), as `pipeline(source, destination)` does:
 * ends it when the content ends, and destroys both when either fails or the client goes away
 * (rejecting with ERR_STREAM_PREMATURE_CLOSE then).
 */
export async function sendContent(source: Readable, destination: Writable, options: SendOptions = {}): Promise<void> {
  const { taken, passing, mayHold = 0 } = options;
  // Settles when all is out, or rejects (ERR_STREAM_PREMATURE_CLOSE) when the client goes away.
  const done = finished(destination);
  done.catch(() => undefined);
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      passing?.(chunk);
      const room = destination.write(chunk, taken && (() => taken(chunk)));
      if (room || destination.writableLength < mayHold) continue;
      if (!destination.destroyed) await drainOrClose(destination);
      if (destination.destroyed) {
        await done;
        throw Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
      }
    }
    destination.end();
    await done;
  } catch (error) {
    source.destroy();
    destination.destroy();
    throw error;
  }
}

/** Resolves on the destination's next 'drain' or its 'close', whichever comes first. */
function drainOrClose(destination: Writable): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      destination.off('drain', settle);
      destination.off('close', settle);
      resolve();
    };
    destination.on('drain', settle);
    destination.on('close', settle);
  });
}
