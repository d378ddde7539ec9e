// A file's type is found, not taken (ADR 0064): read from its first bytes and its name on every
// upload path (a multipart upload, a resumable one sent in small pieces, a guest's into a file
// request), the client's type kept only where those agree with it. What a user sees of it: the
// type in the API, the share page's preview, the raw link's headers and the list's type filter.
import type { FileDto } from '../../server/services/files';
import { fileForm, type TestApp } from '../helpers/app';
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test, type TestUser } from '../helpers/fixtures';
import { getPage } from '../helpers/pages-fixtures';
import { OFFSET_OCTET_STREAM, TUS, tusClient, uploadMetadata } from '../helpers/tus';

/** A WebM longer than the 4 KiB its type is read from. */
const WEBM = sampleOf('video/webm', 20_000);
const SOURCE = 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n';
const HTML = '<!doctype html><script>document.title = "pwned"</script>';
/** What a resumable upload's requests carry each: the first holds less than the bytes the type is read from. */
const PIECE_BYTES = 1000;

/** `POST /api/v1/files` as `curl -F file=@<name>;type=<type>` sends it: the stored file. */
async function multipartUpload(user: TestUser, content: string | Uint8Array, name: string, type: string) {
  const res = await user.fetch('/api/v1/files', { method: 'POST', body: fileForm(content, name, type) });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { file: FileDto }).file;
}

/** A tus upload whose bytes come in pieces of PIECE_BYTES (the creation carries none): the stored file. */
async function resumableUpload(app: TestApp, user: TestUser, content: string | Uint8Array, name: string, type: string) {
  const bytes = Buffer.from(content);
  const tus = tusClient(app.url, user.cookie);
  const created = await tus.create(bytes.length, { filename: name, filetype: type });
  expect(created.status).toBe(201);
  const location = created.headers.get('location') ?? '';
  let last = created;
  for (let offset = 0; offset < bytes.length; offset += PIECE_BYTES) {
    last = await tus.patch(location, offset, bytes.subarray(offset, offset + PIECE_BYTES));
    expect(last.status).toBeLessThan(300);
  }
  expect(last.status).toBe(200);
  return ((await last.json()) as { file: FileDto }).file;
}

/** The same file sent both ways: the two stored files. */
async function bothWays(app: TestApp, user: TestUser, content: string | Uint8Array, name: string, type: string) {
  return [await multipartUpload(user, content, name, type), await resumableUpload(app, user, content, name, type)];
}

async function sharePage(app: TestApp, id: string): Promise<string> {
  const res = await getPage(app, `/f/${id}`);
  expect(res.status).toBe(200);
  return res.text();
}

async function listed(user: TestUser, type: string): Promise<string[]> {
  const res = await user.fetch(`/api/v1/files?type=${type}&sort=name`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { files: FileDto[] }).files.map((file) => file.originalName);
}

describe('the type of an uploaded file', () => {
  test('when a WebM comes as application/octet-stream (curl -F), then it is stored as video/webm and its share page shows a video', async ({
    app,
    alice,
  }) => {
    for (const file of await bothWays(app, alice, WEBM, 'clip.webm', 'application/octet-stream')) {
      expect(file.mimeType).toBe('video/webm');
      expect(await sharePage(app, file.id)).toMatch(new RegExp(`<video src="/f/${file.id}/preview" controls=""`));
    }
  });

  test('when server.ts comes as text/vnd.trolltech.linguist, then it is stored as TypeScript text and its share page shows its text', async ({
    app,
    alice,
  }) => {
    for (const file of await bothWays(app, alice, SOURCE, 'server.ts', 'text/vnd.trolltech.linguist')) {
      expect(file.mimeType).toBe('text/x-typescript');
      const html = await sharePage(app, file.id);
      expect(html).toContain('class="text-preview"');
      expect(html).toContain('greet');
    }
  });

  test('when a PNG is named notes.txt, then its bytes win: it is stored as image/png', async ({ app, alice }) => {
    for (const file of await bothWays(app, alice, sampleOf('image/png', 6000), 'notes.txt', 'text/plain'))
      expect(file.mimeType).toBe('image/png');
  });

  test('when HTML is named .txt, then it stays text/plain: the raw link shows it as text with nosniff, never as HTML', async ({
    app,
    alice,
  }) => {
    for (const declared of ['text/plain', 'text/html']) {
      for (const file of await bothWays(app, alice, HTML, 'page.txt', declared)) {
        expect(file.mimeType, declared).toBe('text/plain');
        const res = await fetch(`${app.url}/f/${file.id}/raw`);
        expect(res.headers.get('content-type'), declared).toBe('text/plain; charset=utf-8');
        expect(res.headers.get('x-content-type-options'), declared).toBe('nosniff');
        expect(await res.text()).toBe(HTML);
      }
    }
  });

  test('when UTF-8 text without an extension comes as application/octet-stream, then it is text/plain, a character cut at the 4 KiB read included; other bytes stay application/octet-stream', async ({
    app,
    alice,
  }) => {
    // "é" is two bytes, the 4,096th and the 4,097th: the bytes read end inside it.
    const text = `${'a'.repeat(4095)}é and more text\n`;
    for (const file of await bothWays(app, alice, text, 'README', 'application/octet-stream'))
      expect(file.mimeType).toBe('text/plain');
    // Latin-1 is not UTF-8: nothing says what it is.
    const latin1 = Buffer.from('café au lait\n', 'latin1');
    for (const file of await bothWays(app, alice, latin1, 'notes', 'application/octet-stream'))
      expect(file.mimeType).toBe('application/octet-stream');
  });

  test('when bytes of no known format come, then they are application/octet-stream, even named .png or sent as image/png', async ({
    app,
    alice,
  }) => {
    const noise = Buffer.alloc(6000);
    for (let i = 16; i < noise.length; i++) noise[i] = (i * 7919) % 256;
    for (const [name, type] of [
      ['noise.bin', 'application/octet-stream'],
      ['noise.png', 'application/octet-stream'],
      ['noise', 'image/png'],
    ]) {
      for (const file of await bothWays(app, alice, noise, name, type))
        expect(file.mimeType, `${name} ${type}`).toBe('application/octet-stream');
    }
  });

  test('when a guest sends files into a request (a form, and a resumable upload), then their types are found as the owner’s are', async ({
    app,
    alice,
  }) => {
    const created = await alice.fetch('/api/v1/requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Clips' }),
    });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { request: { id: string } }).request;
    const form = await fetch(`${app.url}/r/${id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: fileForm(WEBM, 'clip.webm', 'application/octet-stream'),
    });
    expect(form.status).toBe(201);
    const resumable = await fetch(`${app.url}/r/${id}/uploads`, {
      method: 'POST',
      headers: {
        ...TUS,
        'Upload-Length': String(Buffer.byteLength(SOURCE)),
        'Upload-Metadata': uploadMetadata({ filename: 'server.ts', filetype: 'video/mp2t' }),
        'Content-Type': OFFSET_OCTET_STREAM,
      },
      body: SOURCE,
    });
    expect(resumable.status).toBe(201);
    const res = await alice.fetch(`/api/v1/requests/${id}`);
    const files = ((await res.json()) as { files: FileDto[] }).files;
    expect(Object.fromEntries(files.map((file) => [file.originalName, file.mimeType]))).toEqual({
      'clip.webm': 'video/webm',
      'server.ts': 'text/x-typescript',
    });
  });

  test('when the list is narrowed by type, then a WebM is a video, source and data files are code, and prose is a document', async ({
    bob,
  }) => {
    await multipartUpload(bob, WEBM, 'clip.webm', 'application/octet-stream');
    await multipartUpload(bob, SOURCE, 'server.ts', 'video/mp2t');
    await multipartUpload(bob, 'fn main() {}\n', 'main.rs', 'application/octet-stream');
    await multipartUpload(bob, '{"a": 1}\n', 'data.json', 'application/json');
    await multipartUpload(bob, '# Notes\n', 'README.md', 'text/markdown');
    await multipartUpload(bob, 'plain words\n', 'notes.txt', 'text/plain');
    expect(await listed(bob, 'video')).toEqual(['clip.webm']);
    expect(await listed(bob, 'code')).toEqual(['data.json', 'main.rs', 'server.ts']);
    expect(await listed(bob, 'documents')).toEqual(['notes.txt', 'README.md']);
    expect(await listed(bob, 'other')).toEqual([]);
  });
});
