// Baseline for uploads: the least a Node server can do with a multipart body — busboy,
// straight into a file on disk, answer with the size. No framework, no database, no session.
//   node bench/bare-upload-server.mjs <dir>      (prints {"port":N} on stdout once listening)
// Query string per request: ?fsync=1 writes with `flush: true` (fsync before close, as the
// service does); ?hwm=<bytes> sets busboy's file stream and the write stream highWaterMark
// (without it, Node's and busboy's defaults are used: the "bare" baseline of docs/performance.md).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: bare-upload-server.mjs <dir>\n');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const fsync = url.searchParams.get('fsync') === '1';
    const hwm = Number(url.searchParams.get('hwm')) || undefined;
    const parser = busboy({ headers: req.headers, defParamCharset: 'utf8', ...(hwm ? { fileHwm: hwm } : {}) });
    let stored = null;
    parser.on('file', (_field, file) => {
      if (stored) return void file.resume();
      const name = `${randomBytes(12).toString('hex')}.bin`;
      const output = fs.createWriteStream(path.join(dir, name), {
        flush: fsync,
        ...(hwm ? { highWaterMark: hwm } : {}),
      });
      stored = pipeline(file, output).then(() => ({ name, size: output.bytesWritten }));
    });
    await pipeline(req, parser);
    if (!stored) throw new Error('no file');
    const result = await stored;
    const body = JSON.stringify(result);
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } catch (error) {
    if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(String(error));
  }
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
