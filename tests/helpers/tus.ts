// tus 1.0 requests as a client sends them (fetch, so the OpenAPI check sees every answer), and
// one that breaks off part-way, as a dropped connection does.
import { createHash } from 'node:crypto';
import net from 'node:net';

export const TUS = { 'Tus-Resumable': '1.0.0' } as const;
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** Upload-Metadata: keys with base64 values, comma-separated. */
export function uploadMetadata(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

export interface TusClient {
  create(length: number, metadata?: Record<string, string>, body?: Uint8Array): Promise<Response>;
  patch(location: string, offset: number, body: Uint8Array): Promise<Response>;
  head(location: string): Promise<Response>;
  remove(location: string): Promise<Response>;
  /** Sends a PATCH declaring `declared` bytes, sends only `body`, then closes the connection. */
  patchBrokenOff(location: string, offset: number, body: Uint8Array, declared: number): Promise<void>;
}

/** A client authenticated by `auth` (a Cookie header value, or `Bearer …`). */
export function tusClient(baseUrl: string, auth: string): TusClient {
  const authHeader: Record<string, string> = auth.startsWith('Bearer ') ? { authorization: auth } : { cookie: auth };
  // The server's Location is relative (the upload goes on at the address it began at).
  const at = (location: string) => new URL(location, baseUrl).href;
  return {
    create(length, metadata = { filename: 'data.bin' }, body) {
      return fetch(`${baseUrl}/api/v1/uploads`, {
        method: 'POST',
        headers: {
          ...TUS,
          ...authHeader,
          'Upload-Length': String(length),
          'Upload-Metadata': uploadMetadata(metadata),
          ...(body ? { 'Content-Type': OFFSET_OCTET_STREAM } : {}),
        },
        body: body as BodyInit | undefined,
      });
    },
    patch(location, offset, body) {
      return fetch(at(location), {
        method: 'PATCH',
        headers: { ...TUS, ...authHeader, 'Upload-Offset': String(offset), 'Content-Type': OFFSET_OCTET_STREAM },
        body: body as BodyInit,
      });
    },
    head(location) {
      return fetch(at(location), { method: 'HEAD', headers: { ...TUS, ...authHeader } });
    },
    remove(location) {
      return fetch(at(location), { method: 'DELETE', headers: { ...TUS, ...authHeader } });
    },
    async patchBrokenOff(location, offset, body, declared) {
      const socket = await openPatch(at(location), auth, offset, declared);
      await new Promise<void>((resolve) => socket.write(body, () => resolve()));
      // The bytes reach the server before the connection goes (a FIN, not a reset).
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.end();
      await new Promise<void>((resolve) => socket.once('close', () => resolve()).resume());
    },
  };
}

/**
 * Opens a PATCH that declares `declared` bytes and sends none yet: the caller writes what it
 * wants and then keeps the connection open, ends it, or lets a server die under it.
 */
export async function openPatch(location: string, auth: string, offset: number, declared: number): Promise<net.Socket> {
  const url = new URL(location);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => {}); // a test may kill the server under it
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const headers = [
    `PATCH ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Tus-Resumable: 1.0.0',
    auth.startsWith('Bearer ') ? `Authorization: ${auth}` : `Cookie: ${auth}`,
    `Upload-Offset: ${offset}`,
    `Content-Type: ${OFFSET_OCTET_STREAM}`,
    `Content-Length: ${declared}`,
  ];
  socket.write(`${headers.join('\r\n')}\r\n\r\n`);
  return socket;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Asks HEAD until the offset stops being `not` (a broken-off request is still being recorded). */
export async function offsetOnceSettled(
  client: TusClient,
  location: string,
  expected: number,
  timeoutMs = 10_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.head(location);
    const offset = Number(res.headers.get('upload-offset'));
    if (offset === expected || Date.now() > deadline) return offset;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
