// File names, from the multipart part header to Content-Disposition (RFC 6266):
// cleaned at upload, carried exactly in filename*, with an ASCII fallback, never able to
// break or inject a header.
import contentDisposition from 'content-disposition';
import { describe, expect } from 'vitest';
import type { FileDto } from '../../server/services/files';
import { handMadeMultipart, request, test, type SharingApp } from './support';

/** Uploads with a part header written by hand; returns the API's file object. */
async function uploadWithDisposition(
  app: SharingApp,
  disposition: string,
  content = 'named content',
): Promise<FileDto> {
  const { body, contentType } = handMadeMultipart(
    [`Content-Disposition: form-data; name="file"; ${disposition}`, 'Content-Type: text/plain'],
    content,
  );
  const res = await fetch(`${app.url}/api/v1/files`, {
    method: 'POST',
    headers: { cookie: app.cookie, 'content-type': contentType },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { file: FileDto }).file;
}

/** RFC 5987 form of a UTF-8 name, for `filename*=` in a part header. */
const ext = (name: string) =>
  `filename*=UTF-8''${Buffer.from(name, 'utf8').toString('hex').replace(/../g, '%$&').toUpperCase()}`;

/**
 * Fetches the raw link (inline and as download, GET and HEAD) and checks the header is
 * well-formed, ASCII-only, has an ASCII `filename=` fallback and parses back to `expected`.
 */
async function expectDispositionCarries(app: SharingApp, fileId: string, expected: string) {
  for (const query of ['', '?download=1']) {
    for (const method of ['GET', 'HEAD']) {
      const res = await request(`${app.url}/f/${fileId}/raw${query}`, { method });
      expect(res.status, `${method} ${query}`).toBe(200);
      const lines = res.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      expect(lines.filter((name) => name === 'content-disposition')).toHaveLength(1);
      expect(lines).not.toContain('set-cookie');
      expect(lines).not.toContain('x-injected');
      const header = res.headers['content-disposition']!;
      // Only visible ASCII (and spaces) on the wire.
      expect(header).toMatch(/^[\x20-\x7e]+$/);
      const parsed = contentDisposition.parse(header);
      expect(parsed.type).toBe(query ? 'attachment' : 'inline');
      // parse() prefers filename* (the exact UTF-8 name) over the fallback.
      expect(parsed.parameters.filename).toBe(expected);
      const fallback = /(?:^|;\s*)filename="((?:[^"\\]|\\.)*)"/.exec(header);
      expect(fallback, header).not.toBeNull();
      expect(fallback![1]).toMatch(/^[\x20-\x7e]+$/);
      expect(fallback![1]).not.toMatch(/["\\%]/);
    }
  }
}

describe('names sent by browsers and curl (FormData)', () => {
  const names: Array<[string, string]> = [
    ['plain ASCII', 'report-2026.txt'],
    ['accents and an emoji', 'résumé 📄.pdf'],
    ['several emoji', 'party 😀🎉.png'],
    ['CJK', '日本語のファイル.txt'],
    ['percent escapes that must stay literal', '100%41 sure %25 %E2%82%AC.txt'],
    ['semicolons, commas, equals and an apostrophe', "it's; a=b, c.txt"],
    ['a leading dot and spaces', '.hidden  name .txt'],
  ];
  for (const [what, name] of names) {
    test(`when a file named with ${what} is uploaded, then the API keeps the name and Content-Disposition carries it exactly`, async ({
      app,
    }) => {
      const { file } = await app.upload('x', name, 'text/plain');
      expect(file.originalName).toBe(name);
      await expectDispositionCarries(app, file.id, name);
    });
  }

  test('when the name is ASCII only, then filename= and filename*=UTF-8 both carry it (RFC 6266: the fallback plus filename*)', async ({
    app,
  }) => {
    const { file } = await app.upload('x', "simple (name)'s*.txt", 'text/plain');
    const res = await request(`${app.url}/f/${file.id}/raw`);
    expect(res.headers['content-disposition']).toBe(
      `inline; filename="simple (name)'s*.txt"; filename*=UTF-8''simple%20%28name%29%27s%2A.txt`,
    );
  });

  test('when the name has accents, then the fallback is the same name without them', async ({ app }) => {
    const { file } = await app.upload('x', 'résumé 📄.pdf', 'application/pdf');
    const res = await request(`${app.url}/f/${file.id}/raw?download=1`);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="resume _.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%F0%9F%93%84.pdf`,
    );
  });
});

describe('names written by hand into the part header', () => {
  test('when the name has double quotes, then they survive the upload and the header stays well-formed', async ({
    app,
  }) => {
    const file = await uploadWithDisposition(app, 'filename="say \\"hi\\".txt"');
    expect(file.originalName).toBe('say "hi".txt');
    await expectDispositionCarries(app, file.id, 'say "hi".txt');
  });

  test('when filename* carries CR/LF and a header line, then they are stripped at upload and nothing is injected', async ({
    app,
  }) => {
    const file = await uploadWithDisposition(
      app,
      `filename="fallback.txt"; ${ext('evil\r\nSet-Cookie: pwned=1\r\nX-Injected: yes\r\n\r\n.txt')}`,
    );
    expect(file.originalName).toBe('evilSet-Cookie: pwned=1X-Injected: yes.txt');
    await expectDispositionCarries(app, file.id, 'evilSet-Cookie: pwned=1X-Injected: yes.txt');
  });

  test('when filename* carries NUL, tab, DEL and C1 controls, then they are stripped at upload', async ({ app }) => {
    const file = await uploadWithDisposition(app, ext('a\u0000b\tc\u007fd\u0085e\u009bf.txt'));
    expect(file.originalName).toBe('abcdef.txt');
    await expectDispositionCarries(app, file.id, 'abcdef.txt');
  });

  test('when the name carries bidi overrides, isolates and marks, then they are stripped at upload', async ({
    app,
  }) => {
    const file = await uploadWithDisposition(
      app,
      ext('invoice\u202Efdp.exe\u202C \u2066x\u2069\u200E\u200F\u061C.txt'),
    );
    expect(file.originalName).toBe('invoicefdp.exe x.txt');
    await expectDispositionCarries(app, file.id, 'invoicefdp.exe x.txt');
  });

  test('when the name carries Unicode line and paragraph separators, then they are stripped at upload', async ({
    app,
  }) => {
    const file = await uploadWithDisposition(app, ext('line\u2028para\u2029.txt'));
    expect(file.originalName).toBe('linepara.txt');
  });

  test('when the name is nothing but control characters, then it becomes "file"', async ({ app }) => {
    const file = await uploadWithDisposition(app, `filename="x"; ${ext('\r\n\u0001\u202E')}`);
    expect(file.originalName).toBe('file');
    await expectDispositionCarries(app, file.id, 'file');
  });

  test('when filename* carries bytes that are not UTF-8, then the upload still works and the header is valid', async ({
    app,
  }) => {
    const file = await uploadWithDisposition(app, "filename*=UTF-8''%ED%A0%80%FFx.txt");
    expect(file.originalName).toMatch(/x\.txt$/);
    expect(file.originalName).not.toMatch(/[\uD800-\uDFFF]/);
    await expectDispositionCarries(app, file.id, file.originalName);
  });

  test('when the name is raw UTF-8 in filename= (no filename*), then it is read as UTF-8', async ({ app }) => {
    const file = await uploadWithDisposition(app, 'filename="naïve café ☕.txt"');
    expect(file.originalName).toBe('naïve café ☕.txt');
    await expectDispositionCarries(app, file.id, 'naïve café ☕.txt');
  });

  test('when the name is very long, then it is capped at 255 characters and still served', async ({ app }) => {
    const file = await uploadWithDisposition(app, ext(`${'é'.repeat(300)}.txt`));
    expect(Array.from(file.originalName)).toHaveLength(255);
    await expectDispositionCarries(app, file.id, file.originalName);
  });

  test('when the name carries folders, then the download offers only its last segment', async ({ app }) => {
    const file = await uploadWithDisposition(app, 'filename="photos/2026/beach day.txt"');
    expect(file.originalName).toBe('photos/2026/beach day.txt');
    await expectDispositionCarries(app, file.id, 'beach day.txt');
  });

  test('when the name carries a Windows path or a backslash, then the API keeps it and the download offers what follows the last one', async ({
    app,
  }) => {
    for (const [name, offered] of [
      ['C:\\Users\\me\\notes.txt', 'notes.txt'],
      ['back\\slash.txt', 'slash.txt'],
      ['ends with a backslash\\', 'ends with a backslash'],
      ['\\', 'download'],
    ]) {
      const file = await uploadWithDisposition(app, ext(name));
      expect(file.originalName).toBe(name);
      await expectDispositionCarries(app, file.id, offered);
    }
  });

  test('when the name is only slashes and dots, then the download still has a usable name and no 500', async ({
    app,
  }) => {
    for (const name of ['/', '..', '../..', './']) {
      const file = await uploadWithDisposition(app, `filename="${name}"`);
      const res = await request(`${app.url}/f/${file.id}/raw`);
      expect(res.status, name).toBe(200);
      const parsed = contentDisposition.parse(res.headers['content-disposition']!);
      expect(parsed.parameters.filename, name).toMatch(/\S/);
      expect(parsed.parameters.filename, name).not.toContain('/');
    }
  });

  test('when a name is shown on the share page, then it is escaped there too', async ({ app }) => {
    const file = await uploadWithDisposition(app, 'filename="<img src=x onerror=alert(1)>.txt"');
    const page = await request(`${app.url}/f/${file.id}`);
    expect(page.status).toBe(200);
    const html = page.body.toString('utf8');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.txt');
  });
});
