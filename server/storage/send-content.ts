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
  /** Whether to end the destination after the content (default true); if not, it is left open for more. */
  end?: boolean;
}

/**
 * Streams content into a destination (a response), as `pipeline(source, destination)` does:
 * ends it when the content ends (unless `end: false`), and destroys both when either fails or
 * the client goes away (rejecting with ERR_STREAM_PREMATURE_CLOSE then). Resolves with the
 * number of bytes sent.
 */
export async function sendContent(source: Readable, destination: Writable, options: SendOptions = {}): Promise<number> {
  const { taken, passing, mayHold = 0, end = true } = options;
  // Settles when all is out, or rejects (ERR_STREAM_PREMATURE_CLOSE) when the client goes away.
  const done = end ? finished(destination) : null;
  done?.catch(() => undefined);
  let sent = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      passing?.(chunk);
      sent += chunk.length;
      const room = destination.write(chunk, taken && (() => taken(chunk)));
      if (room || destination.writableLength < mayHold) continue;
      await writableAgain(destination, done);
    }
    if (end) {
      destination.end();
      await done;
    } else if (destination.destroyed) throw prematureClose();
    return sent;
  } catch (error) {
    source.destroy();
    destination.destroy();
    throw error;
  }
}

/**
 * Writes bytes into a destination that stays open, waiting until it has room again when it
 * says so; rejects with ERR_STREAM_PREMATURE_CLOSE when it closes first.
 */
export async function writeBytes(destination: Writable, bytes: Buffer): Promise<void> {
  if (destination.destroyed) throw prematureClose();
  if (!destination.write(bytes)) await writableAgain(destination, null);
}

/** Waits for room in the destination; rejects when it closed instead (after `done`, if it is watched). */
async function writableAgain(destination: Writable, done: Promise<void> | null): Promise<void> {
  if (!destination.destroyed) await drainOrClose(destination);
  if (destination.destroyed) {
    await done;
    throw prematureClose();
  }
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
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
