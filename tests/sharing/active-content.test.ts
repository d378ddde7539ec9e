// Which content the raw link lets a browser render on our origin: types that
// can run script, and types we do not know, are only ever downloaded, as opaque bytes in a
// sandbox; plain media, PDF and text are shown inline; ?download=1 downloads anything.
import contentDisposition from 'content-disposition';
import { describe, expect } from 'vitest';
import { sampleOf } from '../helpers/file-samples';
import { request, test } from './support';

const SCRIPT = '<script>document.title = "pwned"; fetch("/api/v1/files")</script>';

/** Bytes of the type: its signature, for media (a file's type is read from its bytes, ADR 0064); text for text. */
const contentOf = (type: string) => (type === 'text/plain' ? 'content' : sampleOf(type, 64));

async function expectDownloadOnly(rawUrl: string, what: string) {
  for (const method of ['GET', 'HEAD']) {
    const res = await request(rawUrl, { method });
    expect(res.status, `${what} ${method}`).toBe(200);
    expect(res.headers['content-type'], what).toBe('application/octet-stream');
    expect(contentDisposition.parse(res.headers['content-disposition']!).type, what).toBe('attachment');
    expect(res.headers['content-security-policy'], what).toBe('sandbox');
    expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  }
}

describe('active and unknown types', () => {
  // The type sent, the name, and the type stored: the sent one where the name's type is another
  // name of it (ADR 0064); text/xsl is no type the table knows, so the name's, application/xml.
  const active: Array<[string, string, string]> = [
    ['text/html', 'page.html', 'text/html'],
    ['application/xhtml+xml', 'page.xhtml', 'application/xhtml+xml'],
    ['image/svg+xml', 'drawing.svg', 'image/svg+xml'],
    ['text/xml', 'data.xml', 'text/xml'],
    ['application/xml', 'feed.xml', 'application/xml'],
    ['application/javascript', 'app.js', 'application/javascript'],
    ['text/javascript', 'module.mjs', 'text/javascript'],
    ['text/xsl', 'style.xsl', 'application/xml'],
  ];
  for (const [type, name, stored] of active) {
    test(`when a ${type} file is opened by its raw link, then it is an attachment of type application/octet-stream in a CSP sandbox`, async ({
      app,
    }) => {
      const { rawUrl, file } = await app.upload(SCRIPT, name, type);
      expect(file.mimeType).toBe(stored);
      await expectDownloadOnly(rawUrl, type);
      const res = await request(rawUrl);
      // The bytes themselves are untouched.
      expect(res.body.toString('utf8')).toBe(SCRIPT);
    });
  }

  test('when a Flash file is opened by its raw link, then it is an attachment of type application/octet-stream in a CSP sandbox', async ({
    app,
  }) => {
    const flash = sampleOf('application/x-shockwave-flash', 64);
    const { rawUrl, file } = await app.upload(flash, 'old.swf', 'application/x-shockwave-flash');
    expect(file.mimeType).toBe('application/x-shockwave-flash');
    await expectDownloadOnly(rawUrl, 'application/x-shockwave-flash');
    expect((await request(rawUrl)).body.equals(flash)).toBe(true);
  });

  test('when a .png is declared as text/html, then the declared type decides and it is only downloaded', async ({
    app,
  }) => {
    const { rawUrl } = await app.upload(SCRIPT, 'innocent.png', 'text/html');
    await expectDownloadOnly(rawUrl, 'png declared as html');
  });

  test('when the declared type has odd case and parameters, then it is still recognised as HTML', async ({ app }) => {
    const { rawUrl, file } = await app.upload(SCRIPT, 'shouty.html', 'TEXT/HTML; charset=UTF-8');
    expect(file.mimeType).toBe('text/html');
    await expectDownloadOnly(rawUrl, 'TEXT/HTML');
  });

  for (const type of [
    'application/x-made-up',
    'foo/bar',
    'application/json',
    'text/css',
    'multipart/x-mixed-replace',
  ]) {
    test(`when a file of type ${type} is opened by its raw link, then it is only downloaded`, async ({ app }) => {
      const { rawUrl } = await app.upload(SCRIPT, 'thing.dat', type);
      await expectDownloadOnly(rawUrl, type);
    });
  }

  test('when the part declares a malformed type, then the name decides (ADR 0064): a .html file is only downloaded', async ({
    app,
  }) => {
    const { rawUrl, file } = await app.upload(SCRIPT, 'weird.html', 'not a type');
    expect(file.mimeType).toBe('text/html');
    await expectDownloadOnly(rawUrl, 'malformed type on a .html');
  });

  test('when script comes as application/octet-stream under a name that tells nothing, then it is text/plain: shown as text with nosniff, never as HTML', async ({
    app,
  }) => {
    const { rawUrl, file } = await app.upload(`<!doctype html>${SCRIPT}`, 'thing.dat', 'application/octet-stream');
    expect(file.mimeType).toBe('text/plain');
    const res = await request(rawUrl);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).not.toMatch(/script-src/);
  });
});

describe('inline-safe types', () => {
  const inline: Array<[string, string, string]> = [
    ['image/png', 'photo.png', 'image/png'],
    ['image/jpeg', 'photo.jpg', 'image/jpeg'],
    ['image/gif', 'anim.gif', 'image/gif'],
    ['image/webp', 'photo.webp', 'image/webp'],
    ['audio/mpeg', 'song.mp3', 'audio/mpeg'],
    ['audio/ogg', 'song.ogg', 'audio/ogg'],
    ['audio/wav', 'sound.wav', 'audio/wav'],
    ['video/mp4', 'clip.mp4', 'video/mp4'],
    ['video/webm', 'clip.webm', 'video/webm'],
    ['application/pdf', 'paper.pdf', 'application/pdf'],
    ['text/plain', 'notes.txt', 'text/plain; charset=utf-8'],
  ];
  for (const [type, name, served] of inline) {
    test(`when a ${type} file is opened by its raw link, then it is shown inline as ${served}, with nosniff and a script-free CSP`, async ({
      app,
    }) => {
      const { rawUrl } = await app.upload(contentOf(type), name, type);
      const res = await request(rawUrl);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(served);
      const disposition = contentDisposition.parse(res.headers['content-disposition']!);
      expect(disposition.type).toBe('inline');
      expect(disposition.parameters.filename).toBe(name);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = res.headers['content-security-policy']!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toMatch(/script-src/);
    });

    test(`when a ${type} file is fetched with ?download=1, then it is an attachment`, async ({ app }) => {
      const { rawUrl } = await app.upload(contentOf(type), name, type);
      const res = await request(`${rawUrl}?download=1`);
      expect(res.status).toBe(200);
      expect(contentDisposition.parse(res.headers['content-disposition']!).type).toBe('attachment');
      expect(res.headers['content-type']).toBe('application/octet-stream');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  }

  test('when a text/plain file contains HTML, then it is served as text/plain with nosniff (never sniffed into HTML)', async ({
    app,
  }) => {
    const { rawUrl } = await app.upload(`<!doctype html>${SCRIPT}`, 'looks-like.html.txt', 'text/plain');
    const res = await request(rawUrl);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('when an active type is fetched with ?download=1, then it stays an attachment in a sandbox', async ({ app }) => {
    const { rawUrl } = await app.upload(SCRIPT, 'page.html', 'text/html');
    await expectDownloadOnly(`${rawUrl}?download=1`, 'html download');
  });
});

describe('nosniff everywhere on the raw link', () => {
  test('when the raw link answers 206, 304, 416 or 404, then it carries X-Content-Type-Options: nosniff', async ({
    app,
  }) => {
    const { rawUrl } = await app.upload('0123456789', 'digits.txt', 'text/plain');
    const full = await request(rawUrl);
    const answers = await Promise.all([
      request(rawUrl, { headers: { range: 'bytes=0-1' } }),
      request(rawUrl, { headers: { 'if-none-match': full.headers.etag! } }),
      request(rawUrl, { headers: { range: 'bytes=100-' } }),
      request(`${app.url}/f/AAAAAAAAAAAAAAAAAAAAAA/raw`),
    ]);
    expect(answers.map((res) => res.status)).toEqual([206, 304, 416, 404]);
    for (const res of answers) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
