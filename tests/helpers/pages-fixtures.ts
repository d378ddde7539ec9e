// Helpers for the page tests (tests/pages, tests/e2e): plain HTTP as a browser without
// JavaScript would speak it, and small real files to upload. Nothing here is mocked.
import { deflateSync } from 'node:zlib';
import type { TestApp } from './app';
import { totpCode } from './totp';

/** A GET that does not follow redirects, as a test wants to see them. */
export function getPage(app: TestApp, path: string, cookie?: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}${path}`, { redirect: 'manual', headers: { ...(cookie ? { cookie } : {}), ...headers } });
}

/** A form POST (application/x-www-form-urlencoded), as a browser sends it without JavaScript. */
export function postForm(
  app: TestApp,
  path: string,
  fields: Record<string, string>,
  options: { cookie?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...options.headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface FilePart {
  field?: string;
  filename: string;
  type?: string;
  content: string | Uint8Array;
}

/**
 * A multipart/form-data body written byte for byte, so a test can send exactly what a
 * browser sends — including `filename=""` for a file input left empty.
 */
export function multipartBody(part: FilePart): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = `----pagesTestBoundary${Math.random().toString(16).slice(2)}`;
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="${part.field ?? 'file'}"; filename="${part.filename}"\r\n` +
    `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`;
  const body = new Uint8Array(
    Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(part.content), Buffer.from(`\r\n--${boundary}--\r\n`)]),
  );
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /upload (or another path) with one file part, as the page's form does without JavaScript. */
export function postUpload(app: TestApp, cookie: string, part: FilePart, path = '/upload') {
  const { body, contentType } = multipartBody(part);
  return fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': contentType },
    body,
  });
}

/** Uploads through the JSON API and returns the file object (for tests about other pages). */
export async function apiUpload(app: TestApp, cookie: string, part: FilePart) {
  const { body, contentType } = multipartBody(part);
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie, 'content-type': contentType },
    body,
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
  return (await res.json()).file as {
    id: string;
    storedName: string;
    originalName: string;
    size: number;
    createdAt: string;
  };
}

/** The Set-Cookie line of the session cookie, or undefined. */
export function sessionSetCookie(res: Response): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith('token='));
}

/** The attributes of a Set-Cookie line, names lower-cased (`httponly` → true). */
export function cookieAttributes(setCookie: string): Record<string, string | true> {
  const [, ...attrs] = setCookie.split(';').map((s) => s.trim());
  const out: Record<string, string | true> = {};
  for (const attr of attrs) {
    const eq = attr.indexOf('=');
    if (eq === -1) out[attr.toLowerCase()] = true;
    else out[attr.slice(0, eq).toLowerCase()] = attr.slice(eq + 1);
  }
  return out;
}

/**
 * What a reader sees of an HTML page: the text of <body> without scripts, styles, tags or
 * the hidden inputs, entities decoded, whitespace collapsed. A <span> or <wbr> inside a word
 * (a file's name and its extension, a type's break points) leaves it one word.
 */
export function visibleText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return body
    .replace(/<script[\s\S]*?<\/script>/gi, ' ')
    .replace(/<style[\s\S]*?<\/style>/gi, ' ')
    .replace(/<\/?(span|wbr)\b[^>]*>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text of each alert (`role="alert"`: a form's refusal) of a page, as a reader sees it. */
export function alertsOf(html: string): string[] {
  return [...html.matchAll(/<(p|div)\b[^>]*\brole="alert"[^>]*>([\s\S]*?)<\/\1>/g)].map((match) =>
    visibleText(match[2]),
  );
}

/** The href of every link (<a>) of a page, entities decoded. */
export function linkHrefs(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/gi)].map((m) => m[1].replace(/&amp;/g, '&'));
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid RGB PNG of the given size: a diagonal two-colour pattern, so a screenshot shows it. */
export function makePng(width = 64, height = 48): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then pixels
    for (let x = 0; x < width; x++) {
      const band = Math.floor((x + y) / 8) % 2 === 0;
      row.set(band ? [36, 86, 214] : [250, 200, 60], 1 + x * 3);
    }
    rows.push(row);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What a page offers the user it is for: the header's menu, and the error page's "Go to my files". */
export function menuOf(html: string) {
  const header = visibleText(/<header[\s\S]*?<\/header>/.exec(html)?.[0] ?? '');
  return {
    logOut: header.includes('Log out'),
    logIn: header.includes('Log in'),
    myFiles: header.includes('My files'),
    goToMyFiles: visibleText(html).includes('Go to my files'),
  };
}
export const SIGNED_IN_MENU = { logOut: true, logIn: false, myFiles: true, goToMyFiles: true };
export const SIGNED_OUT_MENU = { logOut: false, logIn: true, myFiles: false, goToMyFiles: false };

/** The document's titles (one is expected). */
export function titlesOf(html: string): string[] {
  return [...html.matchAll(/<title>([^<]*)<\/title>/g)].map((match) => match[1]);
}

/** Turns two-factor codes on for a logged-in user with the settings page's forms (the session stays). */
export async function turnOnTwoFactorOnPages(app: TestApp, cookie: string): Promise<void> {
  const begun = await postForm(app, '/settings', { intent: 'begin-2fa' }, { cookie });
  const secret = /<code>([A-Z2-7]{32})<\/code>/.exec(await begun.text())?.[1];
  if (!secret) throw new Error('no two-factor secret on the settings page');
  // Not at the very end of a 30-second step, so that the code is still good when it arrives.
  if (Date.now() % 30_000 > 27_000) await new Promise((resolve) => setTimeout(resolve, 3_500));
  const confirmed = await postForm(
    app,
    '/settings',
    { intent: 'confirm-2fa', code: totpCode(secret, Date.now()) },
    { cookie },
  );
  if (!(await confirmed.text()).includes('Two-factor codes are on.'))
    throw new Error('two-factor codes did not turn on');
}
