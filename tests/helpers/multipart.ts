// Multipart bodies byte by byte, for the shapes FormData cannot produce (empty file names,
// raw UTF-8 names, truncated bodies), uploads with fetch, and uploads sent as slowly as a test likes.
import type http from 'node:http';
import { openRequest } from './raw-http';

export const BOUNDARY = '----test-boundary-7MA4YWxkTrZu0gW';
export const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface Part {
  name: string;
  /** Present: a file part with this filename (sent as raw UTF-8, as browsers do). */
  filename?: string;
  contentType?: string;
  content: string | Uint8Array;
}

export function partHead(part: Omit<Part, 'content'>): string {
  let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
  if (part.filename !== undefined) head += `; filename="${part.filename}"`;
  head += '\r\n';
  if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
  return `${head}\r\n`;
}

/** A complete multipart/form-data body with these parts. */
export function multipartBody(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(partHead(part), 'utf8'));
    chunks.push(Buffer.from(part.content as string | Uint8Array));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** POST /api/v1/files with exactly these bytes and content type. */
export function postFiles(baseUrl: string, cookie: string | null, body: string | Uint8Array, contentType?: string) {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (contentType) headers['content-type'] = contentType;
  return fetch(`${baseUrl}/api/v1/files`, { method: 'POST', headers, body: body as BodyInit });
}

/**
 * A POST /api/v1/files of one file declaring `size` bytes, whose content the test writes itself
 * (`request.write`) while it looks at what the server does meanwhile; the part's head is sent
 * already. `finish` sends the last of the content and the closing boundary, and gives the answer.
 * A test that drops the connection (`request.destroy`) or lets the server die need not read it.
 */
export function openUpload(
  baseUrl: string,
  cookie: string,
  options: { filename: string; size: number; agent?: http.Agent | false },
) {
  const head = Buffer.from(
    partHead({ name: 'file', filename: options.filename, contentType: 'application/octet-stream' }),
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const { request, answer } = openRequest(`${baseUrl}/api/v1/files`, {
    method: 'POST',
    agent: options.agent,
    headers: {
      cookie,
      'content-type': MULTIPART_TYPE,
      'content-length': String(head.length + options.size + tail.length),
    },
  });
  request.write(head);
  return {
    request,
    answer,
    finish(rest: Uint8Array = new Uint8Array(0)) {
      request.end(Buffer.concat([rest, tail]));
      return answer;
    },
  };
}

/** Every byte value from 0 to 255, a few times over: what a binary file looks like. */
export function binaryContent(repeat = 4): Uint8Array {
  const bytes = new Uint8Array(256 * repeat);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
  return bytes;
}

export async function poll(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
