// Answering a request whose body is still arriving (an upload refused before its end) and then
// closing at once makes our kernel reset the connection while the client is still sending: the
// client's next write fails (EPIPE, ECONNRESET) and it may never read the answer we sent, so
// `curl` shows "connection reset" instead of "File too large". Like nginx's lingering close, we
// answer with `Connection: close`, shut our side, and read and discard what the client still
// sends until its body ends or LINGER_MS pass, and only then close.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyCollectionPacer } from '../young-collection-pacer';

/** The longest we go on reading a refused body after answering (nginx allows 30 s). */
export const LINGER_MS = 5_000;

export function closeAfterDiscardingBody(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  if (!socket || socket.destroyed) return;
  // The body may have been piped into a parser that gave up: drop what comes now.
  req.unpipe();
  req.on('error', () => {});
  // Each dropped chunk is dead at once: have it collected at the pace of the other streamed
  // bodies (ADR 0023). Left to V8, a 200 MB body passed through 50-60 MiB of RSS on the way.
  req.on('data', (chunk: Buffer) => bodyCollectionPacer.bytesPassed(chunk.length));
  req.resume();
  res.once('finish', () => {
    // Node has just asked the socket to end our side and to be destroyed once that is flushed
    // (`destroySoon`). Keep it open for reading instead; the HTTP server sockets are half-open.
    if (socket.destroyed || !socket.listeners('finish').includes(socket.destroy)) return;
    socket.removeListener('finish', socket.destroy);
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    const closeWhenFlushed = () => (socket.writableFinished ? close() : socket.once('finish', close));
    if (req.complete) return closeWhenFlushed();
    req.once('end', closeWhenFlushed);
    // The client gave up sending (its FIN) or went away.
    socket.once('end', closeWhenFlushed);
    socket.once('close', () => clearTimeout(timer));
  });
}

/**
 * The same close for the pages (Remix), for every answer that goes out before its request's
 * body has arrived: the upload page refusing a file by its Content-Length or part-way (size,
 * quota, share settings), a redirect to the login page, a route without an action. Without it
 * the connection stayed open with the body unread, and a keep-alive client's next request on
 * it was reset when Node's keep-alive timer ran out.
 * Remix reads the body through a web stream fed by a 'data' listener on the request
 * (@remix-run/node's StreamPump), which enqueues every chunk it is given and pauses the request
 * once its queue is full. That listener is dropped first, as Node's own `IncomingMessage._dump`
 * drops them all. Left in place, it would keep the discarded chunks in the stream and pause the
 * request again, so the discarding stalls until LINGER_MS and the connection is reset after all
 * (or, while busboy still reads the stream, the whole rest of the body goes through it). The
 * stream still ends (or fails) with the request, and so does the parser that read it.
 * Cancelling the stream instead would destroy the request, and the connection under the answer.
 */
export function lingerAfterEarlyAnswers() {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    // Remix gives GET and HEAD no body stream; Node reads and drops any body they carry itself.
    if (req.method === 'GET' || req.method === 'HEAD' || req.complete) {
      next();
      return;
    }
    // The headers are the last moment to say `Connection: close` (the same hook as `on-headers`).
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      res.writeHead = writeHead;
      if (!req.complete) {
        req.removeAllListeners('data');
        closeAfterDiscardingBody(req, res);
      }
      return (writeHead as (...args: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['writeHead'];
    next();
  };
}
