// Baseline for downloads: GET /<name> → stat for the length, then
// `fs.createReadStream(file).pipe(res)`. No framework, no database, no headers beyond the length.
//   node bench/bare-download-server.mjs <dir>    (prints {"port":N} on stdout once listening)
// ?hwm=<bytes> sets the read stream's highWaterMark (default: Node's 64 KiB, the "bare" baseline).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: bare-download-server.mjs <dir>\n');
  process.exit(2);
}
const SAFE_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9]+)?$/;

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const name = decodeURIComponent(url.pathname.slice(1));
  const hwm = Number(url.searchParams.get('hwm')) || undefined;
  if (!SAFE_NAME.test(name)) {
    res.writeHead(404).end();
    return;
  }
  const file = path.join(dir, name);
  fs.stat(file, (error, stats) => {
    if (error || !stats.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': stats.size });
    const stream = fs.createReadStream(file, hwm ? { highWaterMark: hwm } : undefined);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
