// HTTP clients of the benchmark: node:http only, 127.0.0.1 only, bodies streamed from disk
// (a 1 GiB upload is never held in memory: multipart prefix, the file, the suffix).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';

export const HOST = '127.0.0.1';
const CHUNK = 1024 * 1024;

/** The multipart framing around one file field named `file`. */
export function multipartFraming(filename, contentType = 'application/octet-stream') {
  const boundary = `----bench${randomBytes(12).toString('hex')}`;
  const prefix = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: ${contentType}\r\n\r\n`,
  );
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { contentType: `multipart/form-data; boundary=${boundary}`, prefix, suffix };
}

/** Reads a whole (small) response body. */
function collect(res) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

/**
 * Uploads a file from disk as multipart/form-data with a Content-Length, streaming it.
 * Resolves with { status, body (parsed JSON when possible), ms }.
 */
export async function uploadFromDisk({ port, path, file, filename, cookie }) {
  const size = fs.statSync(file).size;
  const { contentType, prefix, suffix } = multipartFraming(filename);
  const started = process.hrtime.bigint();
  const req = http.request({
    host: HOST,
    port,
    path,
    method: 'POST',
    agent: false,
    headers: {
      'content-type': contentType,
      'content-length': String(prefix.length + size + suffix.length),
      ...(cookie ? { cookie } : {}),
    },
  });
  const response = new Promise((resolve, reject) => {
    req.on('response', (res) => collect(res).then((raw) => resolve({ status: res.statusCode, raw }), reject));
    req.on('error', reject);
  });
  const sending = pipeline(async function* body() {
    yield prefix;
    for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK })) yield chunk;
    yield suffix;
  }, req);
  // The server may answer (and close) before the body is sent, e.g. 413: the answer wins.
  const [{ status, raw }] = await Promise.all([response, sending.catch(() => undefined)]);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { status, body: parseJson(raw), ms };
}

/** Uploads a small in-memory buffer (keep-alive agent allowed). */
export function uploadBuffer({ port, path, data, filename, cookie, agent }) {
  const { contentType, prefix, suffix } = multipartFraming(filename);
  const body = Buffer.concat([prefix, data, suffix]);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': contentType, 'content-length': String(body.length), ...(cookie ? { cookie } : {}) },
      },
      (res) => collect(res).then((raw) => resolve({ status: res.statusCode, body: parseJson(raw) }), reject),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GETs a path and counts the body's bytes without keeping them. */
export function download({ port, path, agent = false, cookie }) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path, agent, headers: cookie ? { cookie } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A JSON request with a small body; resolves with status, parsed body, headers and ms. */
export function requestJson({ port, path, method = 'GET', json, cookie, agent = false }) {
  const body = json === undefined ? undefined : Buffer.from(JSON.stringify(json));
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: HOST,
        port,
        path,
        method,
        agent,
        headers: {
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...(cookie ? { cookie } : {}),
        },
      },
      (res) =>
        collect(res).then(
          (raw) =>
            resolve({
              status: res.statusCode,
              headers: res.headers,
              body: parseJson(raw),
              bytes: raw.length,
              ms: Number(process.hrtime.bigint() - started) / 1e6,
            }),
          reject,
        ),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `task(i)` for i in [0, total) with `concurrency` workers; rate and latencies. */
export async function runConcurrent(total, concurrency, task) {
  let next = 0;
  const latencies = [];
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = process.hrtime.bigint();
      await task(i);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { count: total, seconds, perSecond: total / seconds, latencies };
}

function parseJson(raw) {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return raw.toString('utf8').slice(0, 500);
  }
}
