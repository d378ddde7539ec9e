// Sends a planned archive (zip-plan.ts) into a response, piece by piece: the header bytes it
// generates, written as they are reached, and each entry's content sent straight from the store
// into the same response, as a single file's raw download sends it (the store's own way, its
// buffers reused). Nothing of the archive is held beyond the piece being sent (ADR 0036).
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { writeBytes } from '../storage/send-content';
import { ZipContentLengthError, zipSegments, type ZipByteRange, type ZipPlan } from './zip-plan';

/**
 * Sends bytes [start, end] (inclusive, relative to the content) of entry `index`'s content into
 * `destination`, leaving it open, and resolves with the number of bytes sent. Called only for
 * ranges that are not empty.
 */
export type SendZipEntry = (index: number, start: number, end: number, destination: Writable) => Promise<number>;

/**
 * Sends bytes [range.start, range.end] (inclusive) of the planned archive, the whole archive when
 * `range` is null, into `destination`, and ends it. Rejects (and destroys the destination, so that
 * the client sees a broken download, never a wrong one) with ZipContentLengthError when an entry
 * sent more or fewer bytes than its plan says, with the error of `sendEntry`, or with
 * ERR_STREAM_PREMATURE_CLOSE when the client went away.
 */
export async function sendZip(
  plan: ZipPlan,
  range: ZipByteRange | null,
  sendEntry: SendZipEntry,
  destination: Writable,
): Promise<void> {
  try {
    for (const segment of zipSegments(plan, range)) {
      if ('bytes' in segment) {
        await writeBytes(destination, segment.bytes);
        continue;
      }
      const expected = segment.end - segment.start + 1;
      const sent = await sendEntry(segment.entry, segment.start, segment.end, destination);
      if (sent < expected)
        throw new ZipContentLengthError(
          segment.entry,
          `The content of entry ${segment.entry} ended ${expected - sent} bytes early.`,
        );
      if (sent > expected)
        throw new ZipContentLengthError(segment.entry, `The content of entry ${segment.entry} is longer than planned.`);
    }
    destination.end();
    await finished(destination);
  } catch (error) {
    destination.destroy();
    throw error;
  }
}
