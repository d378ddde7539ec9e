// Tools for the hostile-input and fault suite (tests/hardening): aborted uploads and hand-made
// multipart bodies (sent with ./raw-http's rawRequest), a seeded PRNG, and a snapshot of everything an upload
// could leave behind (content, temporary files, rows).
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'vitest';
import type { TestApp } from './app';
import { openUpload } from './multipart';

/**
 * Starts an upload that declares `declaredBytes`, sends the multipart head and `sentBytes` of
 * content, then destroys the socket — a client that goes away mid-upload.
 */
export function abortedUpload(
  baseUrl: string,
  cookie: string,
  options: { declaredBytes: number; sentBytes: number; pauseMs?: number },
): Promise<void> {
  const { request } = openUpload(baseUrl, cookie, {
    filename: 'aborted.bin',
    size: options.declaredBytes,
    agent: false,
  });
  return new Promise((resolve) => {
    request.on('close', () => resolve());
    request.write(filler(options.sentBytes), () => {
      setTimeout(() => request.destroy(), options.pauseMs ?? 0);
    });
  });
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
