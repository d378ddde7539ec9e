// A tus request whose body the data store reads straight from Node's request (ADR 0019,
// docs/performance.md "Resumable uploads"). @tus/server 2.x reads a body as a web stream: srvx
// wraps the Node request with Readable.toWeb, tus turns it back with Readable.fromWeb, then
// passes it through a PassThrough and a length limiter. Four stream hops and several promises
// and objects per 64 KiB chunk; with the heap flag the server runs with, that garbage doubled a
// resumable upload's CPU. Here tus sees a body that carries no bytes (a gate) and still decides
// everything about the request: headers, offsets, sizes, claims, and when it gives up on the
// request (it then ends the stream it hands the data store, and the store stops reading).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { finished, Transform, type Readable, type TransformCallback } from 'node:stream';
import { ERRORS } from '@tus/utils';
import { NodeRequest } from 'srvx/node';

/** The bytes of one request for one append, and what became of them. */
export interface TakenBody {
  /** The request's bytes: ends when the request does, breaks off when it does, or stops when tus gives up on it. */
  content: Readable;
  /** Throws tus' own 413 when the request sent more than the upload has room for (what came before the excess is kept). */
  throwIfOverLimit(): void;
  /** Closes the gate, so that tus' side of the body ends too. */
  release(): void;
}

export class DirectBodyRequest extends NodeRequest {
  private readonly incoming: IncomingMessage;
  private gate: ReadableStreamDefaultController<Uint8Array> | null = null;
  private taken = false;

  constructor(req: IncomingMessage, res: ServerResponse) {
    super({ req, res });
    this.incoming = req;
    // An own property wins over srvx's body getter on the prototype.
    let gateStream: ReadableStream<Uint8Array> | null | undefined;
    Object.defineProperty(this, 'body', {
      get: () => {
        if (req.method === 'GET' || req.method === 'HEAD') return null;
        gateStream ??= new ReadableStream<Uint8Array>({
          start: (controller) => {
            this.gate = controller;
          },
        });
        return gateStream;
      },
    });
  }

  /**
   * The request's bytes for the data store, at most `room` of them. `tusSide` is the stream tus
   * handed the store: it carries nothing, and ends when tus aborts the request (a newer request
   * took the upload over, or the client went away), which ends `content` there.
   */
  takeBody(tusSide: Readable, room: number): TakenBody {
    if (this.taken) throw new Error('The request body was already taken');
    this.taken = true;
    const req = this.incoming;
    const content = new RoomLimit(room);
    // The excess can come in the first chunk, before the store has opened its file and started
    // reading: an 'error' nobody listens to yet would take the whole process down. The store
    // still sees the stream destroyed with it, and `throwIfOverLimit` turns it into tus' 413.
    content.on('error', () => {});
    let released = false;
    // The content ends with every byte that arrived, also those the store was not reading yet
    // (still in the request's or the content's buffer): they were received, and HEAD then counts
    // them. Destroying the content instead would throw its buffered bytes away.
    const endWithWhatArrived = () => {
      if (released || content.writableEnded || content.destroyed) return;
      req.unpipe(content);
      for (let chunk = req.read(); chunk !== null; chunk = req.read()) content.write(chunk);
      content.end();
    };
    tusSide.once('end', endWithWhatArrived);
    tusSide.once('error', endWithWhatArrived);
    tusSide.resume();
    // pipe() does not pass a source's failure on: a request that breaks off ends the content here.
    finished(req, { writable: false }, (error) => {
      if (error) endWithWhatArrived();
    });
    req.pipe(content);
    return {
      content,
      throwIfOverLimit: () => {
        if (content.overLimit) throw ERRORS.ERR_MAX_SIZE_EXCEEDED;
      },
      release: () => {
        released = true;
        req.unpipe(content);
        try {
          this.gate?.close();
        } catch {
          // already closed
        }
      },
    };
  }
}

/** Passes bytes on until more than `room` arrived, then fails (as tus' StreamLimiter does). */
class RoomLimit extends Transform {
  private received = 0;
  overLimit = false;

  constructor(private readonly room: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.room) {
      this.overLimit = true;
      callback(new Error('More bytes than the upload has room for'));
    } else callback(null, chunk);
  }
}
