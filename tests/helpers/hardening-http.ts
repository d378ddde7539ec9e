// Tools for the hostile-input and fault suite (tests/hardening): raw HTTP requests that fetch
// cannot make (exact paths, aborted bodies, odd headers), a seeded PRNG, and a snapshot of
// everything an upload could leave behind (content, temporary files, rows).
import fs from 'node:fs';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'vitest';
import type { TestApp } from './app';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** With `splitAt`: the bytes of the body sent when the answer began to arrive. */
  sentWhenAnswered?: number;
}

/**
 * One request over a fresh connection, sent exactly as given: the path is not normalised,
 * the headers are not touched (no keep-alive), and the body goes out as these bytes.
 */
export function rawRequest(
  baseUrl: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string | string[]>;
    body?: string | Buffer;
    /** Send the body in pieces cut at these offsets (the server then parses it chunk by chunk). */
    splitAt?: number[];
    /** The pause between two pieces (default 2 ms). */
    gapMs?: number;
    /** Stop sending pieces once the answer has begun to arrive (a client that reads it). */
    stopWhenAnswered?: boolean;
    timeoutMs?: number;
  },
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: options.method ?? 'GET',
      path: options.path,
      headers: { connection: 'close', ...options.headers },
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms`)),
      options.timeoutMs ?? 15_000,
    );
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          sentWhenAnswered,
        });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // The server may answer (and close) before the whole body is out: that is an answer, not an error.
    if (!options.splitAt?.length) {
      req.end(options.body);
      return;
    }
    // The body in pieces, a moment apart, so that the server reads them as separate chunks.
    const body = Buffer.from(options.body ?? '');
    req.setHeader('content-length', String(body.length));
    const cuts = [0, ...options.splitAt.filter((cut) => cut > 0 && cut < body.length), body.length];
    void (async () => {
      for (let i = 0; i + 1 < cuts.length && !req.destroyed; i++) {
        if (answered && options.stopWhenAnswered) return;
        req.write(body.subarray(cuts[i], cuts[i + 1]));
        sent = cuts[i + 1];
        await new Promise((resolve) => setTimeout(resolve, options.gapMs ?? 2));
      }
      req.end();
    })();
  });
}

/**
 * Starts an upload that declares `declaredBytes`, sends the multipart head and `sentBytes` of
 * content, then destroys the socket — a client that goes away mid-upload.
 */
export function abortedUpload(
  baseUrl: string,
  cookie: string,
  options: { declaredBytes: number; sentBytes: number; boundary?: string; pauseMs?: number },
): Promise<void> {
  const url = new URL(baseUrl);
  const boundary = options.boundary ?? 'hardening-abort-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="aborted.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  return new Promise((resolve) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/api/v1/files',
      agent: false,
      headers: {
        cookie,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + options.declaredBytes),
      },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(head);
    req.write(filler(options.sentBytes), () => {
      setTimeout(() => req.destroy(), options.pauseMs ?? 0);
    });
  });
}

/**
 * A POST whose body the test writes piece by piece (`request.write`, then `request.end`), to see
 * what the server does while the rest is still on its way; `answer` is its response, read whole.
 */
export function openPost(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): { request: http.ClientRequest; answer: Promise<{ status: number; body: string }> } {
  const target = new URL(baseUrl);
  const request = http.request({ host: target.hostname, port: target.port, method: 'POST', path, headers });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
  });
  return { request, answer };
}

let fillerBytes = Buffer.alloc(0);
/** `size` bytes of content, from one shared buffer (the test's own garbage must not look like a leak). */
function filler(size: number): Buffer {
  if (fillerBytes.length < size) fillerBytes = Buffer.alloc(Math.max(size, 1024 * 1024), 0x61);
  return fillerBytes.subarray(0, size);
}

/** A full garbage collection, so memory figures compare live data (no --expose-gc needed). */
export function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

export { freePort } from './free-port';

/** mulberry32: a tiny seeded PRNG, so a failing fuzz run can be replayed exactly. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface StorageSnapshot {
  stored: string[];
  incomplete: string[];
  rows: Record<string, unknown>[];
}

/** Everything an upload or a delete could change: content, temporary files, and file rows. */
export async function snapshot(app: TestApp): Promise<StorageSnapshot> {
  return {
    stored: await app.storedFiles(),
    incomplete: await app.incompleteFiles(),
    rows: await app.rows('select id, user_id, stored_name, size from files order by id'),
  };
}

/** Nothing stored, nothing half-written, no row added or removed since `before`. */
export async function expectUnchanged(app: TestApp, before: StorageSnapshot): Promise<void> {
  expect(await snapshot(app)).toEqual({ ...before, incomplete: [] });
}

/** Every row has its content, every content has its row, and nothing is half-written. */
export async function expectRowsMatchDisk(app: TestApp): Promise<void> {
  const rows = await app.rows('select stored_name from files');
  const names = rows.map((row) => String(row.stored_name)).sort();
  expect(await app.storedFiles()).toEqual(names);
  expect(await app.incompleteFiles()).toEqual([]);
}

/** The server still answers: /healthz is 200. */
export async function expectServerAnswers(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/healthz`);
  expect(res.status).toBe(200);
  await res.body?.cancel();
}

/** Open file descriptors of this process (the in-process app included). */
export function openFdCount(): number {
  return fs.readdirSync('/proc/self/fd').length;
}

/** POST /api/v1/files with one small file; returns the status and JSON. */
export async function uploadSmall(
  baseUrl: string,
  cookie: string,
  content: string | Uint8Array = 'hello',
  filename = 'hello.txt',
): Promise<{
  status: number;
  json: { file?: { id: string; storedName: string; originalName: string }; error?: string };
}> {
  const form = new FormData();
  form.append('file', new Blob([content as BlobPart], { type: 'text/plain' }), filename);
  const res = await fetch(`${baseUrl}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form });
  return { status: res.status, json: await res.json() };
}

export interface RawPart {
  /** Header lines of the part, as sent (no CRLF). */
  headers: string[];
  content: string | Buffer;
}

/** A multipart body with exactly these part headers, under `boundary`. */
export function rawMultipart(boundary: string, parts: RawPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content, 'utf8'));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A file part with a raw (unescaped) filename. */
export function filePart(filename: string, content: string | Buffer = 'content', field = 'file'): RawPart {
  return {
    headers: [`Content-Disposition: form-data; name="${field}"; filename="${filename}"`, 'Content-Type: text/plain'],
    content,
  };
}

/** A plain form field part. */
export function fieldPart(name: string, value: string | Buffer): RawPart {
  return { headers: [`Content-Disposition: form-data; name="${name}"`], content: value };
}
