// Answering a request whose body is still arriving (an upload refused before its end) and then
// closing at once makes our kernel reset the connection while the client is still sending: the
// client's next write fails (EPIPE, ECONNRESET) and it may never read the answer we sent, so
// `curl` shows "connection reset" instead of "File too large". Like nginx's lingering close, we
// answer with `Connection: close`, shut our side, and read and discard what the client still
// sends until its body ends or LINGER_MS pass, and only then close.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The longest we go on reading a refused body after answering (nginx allows 30 s). */
export const LINGER_MS = 5_000;

export function closeAfterDiscardingBody(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  const socket = req.socket;
  if (!socket || socket.destroyed) return;
  // The body may have been piped into a parser that gave up: drop what comes now.
  req.unpipe();
  req.on('error', () => {});
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
