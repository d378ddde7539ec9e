// Floor of the PostgreSQL + S3 phase: the least a Node server can do between an HTTP client and
// the S3 server. Every byte arrives on one socket and leaves on another, as through the service,
// but with nothing else on the way: no framework, no database, no session, no byte counter.
//   node bench/bare-s3-proxy.mjs <endpoint> <bucket>    (prints {"port":N} on stdout once listening)
// POST /upload/<key>: a multipart body → busboy → the file stream → lib-storage Upload with the
// store's settings (server/storage/s3-store.ts); answers 201 {"size": n}.
// GET /download/<key>: GetObjectCommand → Content-Length from the object, the body piped out.
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import busboy from 'busboy';

const [endpoint, bucket] = process.argv.slice(2);
if (!endpoint || !bucket) {
  process.stderr.write('usage: bare-s3-proxy.mjs <endpoint> <bucket>\n');
  process.exit(2);
}
const PART_BYTES = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

const client = new S3Client({
  region: 'us-east-1',
  endpoint,
  forcePathStyle: true,
  // s3rver checks no credentials; these are the ones the bench gives the service too.
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  // As the store: no aws-chunked framing or trailing checksums (ADR 0012).
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

async function upload(req, res, key) {
  const parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
  let stored = null;
  parser.on('file', (_field, file) => {
    if (stored) return void file.resume();
    const transfer = new Upload({
      client,
      params: { Bucket: bucket, Key: key, Body: file, ContentType: 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    // The size is lib-storage's own count of the bytes it sent (its progress events; the last
    // one is the total): no stream of ours in between to count them.
    let size = 0;
    transfer.on('httpUploadProgress', ({ loaded }) => {
      size = Math.max(size, loaded ?? 0);
    });
    stored = transfer.done().then(
      () => size,
      (error) => {
        // A bucket that fails stops reading (lib-storage ends the file stream): stop the
        // request too, or busboy would wait for good. The client sees the connection cut.
        process.stderr.write(`upload of ${key} failed: ${error?.stack ?? error}\n`);
        parser.destroy(error);
        throw error;
      },
    );
    // Answered below once the body is read; not an unhandled rejection meanwhile.
    stored.catch(() => undefined);
  });
  await pipeline(req, parser);
  if (!stored) throw Object.assign(new Error('no file'), { status: 400 });
  const body = JSON.stringify({ size: await stored });
  res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function download(res, key) {
  let object;
  try {
    object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    if (error?.name === 'NoSuchKey') throw Object.assign(new Error('no such key'), { status: 404 });
    throw error;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': object.ContentLength });
  // pipeline rather than pipe: a client that goes away also releases the S3 connection.
  await pipeline(object.Body, res);
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = /^\/(upload|download)\/(.+)$/.exec(url.pathname);
    const key = route ? decodeURIComponent(route[2]) : null;
    if (route?.[1] === 'upload' && req.method === 'POST') await upload(req, res, key);
    else if (route?.[1] === 'download' && req.method === 'GET') await download(res, key);
    else res.writeHead(404).end();
  } catch (error) {
    // Part of a body already sent: only cutting the connection tells the client.
    if (res.headersSent) return void res.destroy();
    res.writeHead(error?.status ?? 500, { 'content-type': 'text/plain' });
    res.end(String(error));
  }
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
