// HTTP clients of the benchmark: node:http only, 127.0.0.1 only, bodies streamed from disk
// (a 1 GiB upload is never held in memory: multipart prefix, the file, the suffix; a tus PATCH:
// its byte range of the file).
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
 * Sends bytes [start, end) of a file as a request body with a Content-Length, read from disk in
 * 1 MiB chunks, between an optional prefix and suffix (never the whole body in memory).
 * Resolves with { status, headers, body (parsed JSON when possible), ms, waitMs }: waitMs is
 * from the last byte handed to the socket to the answer (the server's work after the body).
 */
async function sendFromDisk({ port, path, method, headers, file, start, end, prefix, suffix, agent = false }) {
  const length = (prefix?.length ?? 0) + (end - start) + (suffix?.length ?? 0);
  const started = process.hrtime.bigint();
  const req = http.request({
    host: HOST,
    port,
    path,
    method,
    agent,
    headers: { ...headers, 'content-length': String(length) },
  });
  const response = new Promise((resolve, reject) => {
    req.on('response', (res) =>
      collect(res).then((raw) => resolve({ status: res.statusCode, headers: res.headers, raw }), reject),
    );
    req.on('error', reject);
  });
  let sentAt = null;
  const sending = pipeline(async function* body() {
    if (prefix) yield prefix;
    if (end > start)
      for await (const chunk of fs.createReadStream(file, { start, end: end - 1, highWaterMark: CHUNK })) yield chunk;
    if (suffix) yield suffix;
  }, req).then(() => {
    sentAt = process.hrtime.bigint();
  });
  // The server may answer (and close) before the body is sent, e.g. 413: the answer wins.
  const [{ status, headers: resHeaders, raw }] = await Promise.all([response, sending.catch(() => undefined)]);
  const answeredAt = process.hrtime.bigint();
  const ms = Number(answeredAt - started) / 1e6;
  const waitMs = sentAt === null ? NaN : Math.max(0, Number(answeredAt - sentAt) / 1e6);
  return { status, headers: resHeaders, body: parseJson(raw), ms, waitMs };
}

/**
 * Uploads a file from disk as multipart/form-data with a Content-Length, streaming it: the whole
 * file, or its bytes [start, end) (one file of a generated set cut from one input).
 * Resolves with { status, body (parsed JSON when possible), ms, waitMs (as sendFromDisk) }.
 */
export async function uploadFromDisk({ port, path, file, filename, cookie, start = 0, end, agent = false }) {
  const until = end ?? fs.statSync(file).size;
  const { contentType, prefix, suffix } = multipartFraming(filename);
  const headers = { 'content-type': contentType, ...(cookie ? { cookie } : {}) };
  const { status, body, ms, waitMs } = await sendFromDisk({
    port,
    path,
    method: 'POST',
    headers,
    file,
    start,
    end: until,
    prefix,
    suffix,
    agent,
  });
  return { status, body, ms, waitMs };
}

const TUS_HEADERS = { 'tus-resumable': '1.0.0' };

/** Upload-Metadata: keys with base64 values, comma-separated. */
const tusMetadata = (values) =>
  Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

/**
 * Uploads a file from disk over tus 1.0, as a resumable client does: the creation (POST, no
 * bytes), then PATCHes of at most `chunkBytes` each, in order, on one keep-alive connection,
 * every body streamed from the file. Stops at the first answer that is not the expected one
 * (each PATCH but the last: 204 with the new Upload-Offset). Resolves with the last answer
 * { status, body, uploadOffset, ms (creation to the last answer), creationMs, patchMs (each
 * PATCH's own time), waitMs (each PATCH's wait for its answer once its body was sent),
 * patches, failedAt? }.
 */
export async function tusUploadFromDisk({ port, path, file, filename, cookie, chunkBytes = Infinity }) {
  const size = fs.statSync(file).size;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const auth = cookie ? { cookie } : {};
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
  try {
    const created = await requestJson({
      port,
      path,
      method: 'POST',
      cookie,
      agent,
      headers: {
        ...TUS_HEADERS,
        'upload-length': String(size),
        'upload-metadata': tusMetadata({ filename, filetype: 'application/octet-stream' }),
        'content-length': '0',
      },
    });
    if (created.status !== 201 || !created.headers.location) {
      return {
        status: created.status,
        body: created.body,
        ms: elapsed(),
        creationMs: created.ms,
        patchMs: [],
        waitMs: [],
        patches: 0,
        failedAt: 'creation',
      };
    }
    const location = new URL(created.headers.location, `http://${HOST}:${port}`).pathname;
    let offset = 0;
    const patchMs = [];
    const waitMs = [];
    while (offset < size) {
      const end = Math.min(size, offset + chunkBytes);
      const last = await sendFromDisk({
        port,
        path: location,
        method: 'PATCH',
        agent,
        file,
        start: offset,
        end,
        headers: {
          ...TUS_HEADERS,
          ...auth,
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
        },
      });
      patchMs.push(last.ms);
      waitMs.push(last.waitMs);
      const answer = {
        status: last.status,
        body: last.body,
        uploadOffset: last.headers['upload-offset'],
        creationMs: created.ms,
        patchMs,
        waitMs,
        patches: patchMs.length,
      };
      if (end < size && (last.status !== 204 || last.headers['upload-offset'] !== String(end))) {
        return { ...answer, ms: elapsed(), failedAt: `PATCH ${patchMs.length} at ${offset}` };
      }
      offset = end;
      if (offset === size) return { ...answer, ms: elapsed() };
    }
    return {
      status: created.status,
      body: created.body,
      ms: elapsed(),
      creationMs: created.ms,
      patchMs,
      waitMs,
      patches: 0,
      failedAt: 'empty file',
    };
  } finally {
    agent.destroy();
  }
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

/** GETs a path and counts the body's bytes without keeping them; resolves with status, headers, bytes and ms. */
export function download({ port, path, agent = false, cookie }) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path, agent, headers: cookie ? { cookie } : {} }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => {
        bytes += chunk.length;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          bytes,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** GETs a (small) page and keeps its text, to check what it says; resolves with status, text and ms. */
export function fetchText({ port, path, agent = false, cookie }) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path, agent, headers: cookie ? { cookie } : {} }, (res) =>
      collect(res).then(
        (raw) =>
          resolve({
            status: res.statusCode,
            text: raw.toString('utf8'),
            bytes: raw.length,
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        reject,
      ),
    );
    req.on('error', reject);
  });
}

/**
 * GETs a page on a connection of its own, as a first visit does, and keeps its text. Resolves
 * with status, headers, text, bytes, ttfbMs (from the request to its status line and headers,
 * what curl calls time_starttransfer) and ms (to the last byte).
 */
export function timeToFirstByte({ port, path, cookie }) {
  const started = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - started) / 1e6;
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path, agent: false, headers: cookie ? { cookie } : {} }, (res) => {
      const ttfbMs = since();
      collect(res).then(
        (raw) =>
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text: raw.toString('utf8'),
            bytes: raw.length,
            ttfbMs,
            ms: since(),
          }),
        reject,
      );
    });
    req.on('error', reject);
  });
}

/** A JSON request with a small body (and any `headers`); resolves with status, parsed body, headers and ms. */
export function requestJson({ port, path, method = 'GET', json, cookie, agent = false, headers = {} }) {
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
          ...headers,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...(cookie ? { cookie } : {}),
        },
      },
      (res) =>
        collect(res).then((raw) => {
          // Timed to the last byte: parsing the answer is the client's work, not the server's.
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          resolve({ status: res.statusCode, headers: res.headers, body: parseJson(raw), bytes: raw.length, ms });
        }, reject),
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
