import { describe, expect } from 'vitest';
import { sampleOf } from '../helpers/file-samples';
import { request, startSharingApp, test, type Uploaded } from './support';

async function page(url: string) {
  const res = await request(url);
  return { status: res.status, html: res.body.toString('utf8'), headers: res.headers };
}

/** The content of <meta property|name="key" content="…">, decoded, or undefined. */
function meta(html: string, key: string): string | undefined {
  const tag = new RegExp(`<meta (?:property|name)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)"`).exec(html);
  return tag ? decode(tag[1]) : undefined;
}

function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The HTML of the preview section only. */
function previewOf(html: string): string {
  const match = /<section class="preview"[^>]*>([\s\S]*?)<\/section>/.exec(html);
  expect(match, 'a preview section').not.toBeNull();
  return match![1];
}

/** The text a text preview shows (its line numbers are drawn by the style sheet), decoded. */
function previewText(preview: string): string {
  const pre = /<pre class="text-preview"[^>]*>([\s\S]*?)<\/pre>/.exec(preview);
  expect(pre, 'a text preview').not.toBeNull();
  return decode(pre![1].replace(/<[^>]+>/g, ''));
}

const rawPath = (uploaded: Uploaded) => `/f/${uploaded.file.id}/raw`;
/** What the page's own preview loads: never counted as a download (ADR 0066). */
const previewPath = (uploaded: Uploaded) => `/f/${uploaded.file.id}/preview`;

describe('the facts and the download button', () => {
  test('when a share page is opened, then it shows the name, the human size, the type in words, the upload date and a download button with the size', async ({
    app,
  }) => {
    const uploaded = await app.upload('x'.repeat(1536), 'Quarterly report.txt', 'text/plain');
    const { status, html } = await page(uploaded.url);
    expect(status).toBe(200);
    expect(html).toContain('<h1 class="file-name">Quarterly report.txt</h1>');
    expect(html).toMatch(/<dt>Size<\/dt><dd>1\.5 KiB<\/dd>/);
    expect(html).toMatch(/<dt>Type<\/dt><dd>Plain text<\/dd>/);
    expect(html).toContain(`<time dateTime="${uploaded.file.createdAt}">`);
    const download = /<a class="button share-download" href="([^"]+)" download="">Download \(1\.5 KiB\)<\/a>/.exec(
      html,
    );
    expect(download).not.toBeNull();
    expect(decode(download![1])).toBe(`${rawPath(uploaded)}?download=1`);
    // The download link really downloads the bytes.
    const res = await request(new URL(decode(download![1]), app.url).href);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    expect(res.body.toString()).toBe('x'.repeat(1536));
  });

  test('when the file is large, then its size reads in MiB', async ({ app }) => {
    const uploaded = await app.upload(Buffer.alloc(3 * 1024 * 1024 + 300 * 1024), 'zeros.bin');
    const { html } = await page(uploaded.url);
    expect(html).toMatch(/<dd>3\.3 MiB<\/dd>/);
  });

  test('when the name holds markup, then the page escapes it everywhere (heading, title, meta tags)', async ({
    app,
  }) => {
    const name = '"><script>alert(1)</script><img src=x onerror=alert(2)>.png';
    const uploaded = await app.upload('not really a png', name, 'image/png');
    const { html } = await page(uploaded.url);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // FormData sends `"` as %22 (HTML multipart encoding), so the stored name is what to expect.
    expect(uploaded.file.originalName).toBe(name.replace('"', '%22'));
    expect(meta(html, 'og:title')).toBe(uploaded.file.originalName);
    expect(meta(html, 'twitter:title')).toBe(uploaded.file.originalName);
  });

  test('when the id is unknown, then the not-found page answers with status 404', async ({ app }) => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'nope', '%3Cscript%3E']) {
      const { status, html } = await page(`${app.url}/f/${id}`);
      expect(status, id).toBe(404);
      expect(html).toContain('Not found');
      expect(html).not.toContain('<script>');
    }
  });

  test('when the record exists but its content is gone from storage, then the page answers 404 like the raw link', async ({
    app,
  }) => {
    const uploaded = await app.upload('bye', 'vanished.txt', 'text/plain');
    await app.removeStored(uploaded.file.storedName);
    expect((await page(uploaded.url)).status).toBe(404);
    expect((await request(uploaded.rawUrl)).status).toBe(404);
  });
});

describe('the preview', () => {
  test('when the file is an image, then the page shows an <img> of its preview address', async ({ app }) => {
    const uploaded = await app.upload(sampleOf('image/png', 64), 'cat.png', 'image/png');
    const preview = previewOf((await page(uploaded.url)).html);
    expect(preview).toContain(`<img src="${previewPath(uploaded)}" alt="cat.png"/>`);
  });

  test('when the file is a video, then the page shows <video controls> on its preview address', async ({ app }) => {
    const uploaded = await app.upload(sampleOf('video/webm', 64), 'clip.webm', 'video/webm');
    const preview = previewOf((await page(uploaded.url)).html);
    expect(preview).toMatch(new RegExp(`<video src="${previewPath(uploaded)}" controls=""`));
  });

  test('when the file is audio, then the page shows <audio controls> on its preview address', async ({ app }) => {
    const uploaded = await app.upload(sampleOf('audio/ogg', 64), 'song.ogg', 'audio/ogg');
    const preview = previewOf((await page(uploaded.url)).html);
    expect(preview).toMatch(new RegExp(`<audio src="${previewPath(uploaded)}" controls=""`));
  });

  test('when the file is a PDF, then the page embeds it and links to it', async ({ app }) => {
    const uploaded = await app.upload('%PDF-1.4', 'paper.pdf', 'application/pdf');
    const preview = previewOf((await page(uploaded.url)).html);
    expect(preview).toMatch(new RegExp(`<iframe src="${previewPath(uploaded)}"`));
    expect(preview).toMatch(new RegExp(`<a href="${previewPath(uploaded)}"[^>]*>Open the PDF`));
  });

  test('when the file is short text, then the page shows all of it and does not say it is truncated', async ({
    app,
  }) => {
    const uploaded = await app.upload('line one\nline two\n', 'short.txt', 'text/plain');
    const preview = previewOf((await page(uploaded.url)).html);
    expect(previewText(preview)).toBe('line one\nline two\n');
    expect(preview).not.toMatch(/truncated/i);
  });

  test('when a text file is 100 KiB, then the page shows its start, not its end, and says the preview is truncated', async ({
    app,
  }) => {
    const filler = 'All work and no play makes Jack a dull boy.\n';
    const text = `START-OF-FILE\n${filler.repeat(Math.ceil((100 * 1024) / filler.length))}END-OF-FILE\n`;
    expect(text.length).toBeGreaterThan(100 * 1024);
    const uploaded = await app.upload(text, 'jack.txt', 'text/plain');
    const { html } = await page(uploaded.url);
    const preview = previewOf(html);
    expect(preview).toContain('START-OF-FILE');
    expect(html).not.toContain('END-OF-FILE');
    expect(preview).toMatch(/Preview truncated: only the first 64 KiB are shown/);
    const pre = previewText(preview);
    expect(Buffer.byteLength(pre)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(pre)).toBeGreaterThan(60 * 1024);
  });

  test('when the cap cuts a multi-byte character, then the preview holds no broken character', async ({ app }) => {
    const text = 'é'.repeat(40 * 1024); // 80 KiB of 2-byte characters; 64 KiB cuts none of them in half
    const odd = `x${text}`; // now the cap falls in the middle of one
    const uploaded = await app.upload(odd, 'accents.txt', 'text/plain');
    const pre = previewText(previewOf((await page(uploaded.url)).html));
    expect(pre).not.toContain('\uFFFD');
    expect(pre.startsWith('xé')).toBe(true);
  });

  test('when a text file contains a script tag, then the page shows it as escaped text and never as markup', async ({
    app,
  }) => {
    const uploaded = await app.upload('before <script>alert(1)</script> after & "quotes"', 'xss.txt', 'text/plain');
    const { html } = await page(uploaded.url);
    const preview = previewOf(html);
    expect(preview).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
  });

  test('when the file is Markdown (its source view), CSV or JSON, then the page previews it as escaped text (the raw link still only downloads it)', async ({
    app,
  }) => {
    for (const [name, type, query] of [
      ['readme.md', 'text/markdown', '?view=source'],
      ['table.csv', 'text/csv', ''],
      ['data.json', 'application/json', ''],
    ]) {
      const uploaded = await app.upload(`content of ${name} <b>bold</b>`, name, type);
      const preview = previewOf((await page(`${uploaded.url}${query}`)).html);
      expect(previewText(preview), type).toBe(`content of ${name} <b>bold</b>`);
      expect(preview, type).not.toContain('<b>');
      expect((await request(uploaded.rawUrl)).headers['content-disposition'], type).toMatch(/^attachment;/);
    }
  });

  test('when the file is HTML, XML or JavaScript, then the page shows its source as escaped text, never as markup, and the raw link only downloads it', async ({
    app,
  }) => {
    for (const [name, type] of [
      ['page.html', 'text/html'],
      ['feed.xml', 'application/xml'],
      ['app.js', 'text/javascript'],
    ]) {
      const uploaded = await app.upload('<script>alert(1)</script>', name, type);
      const { html } = await page(uploaded.url);
      const preview = previewOf(html);
      expect(previewText(preview), type).toBe('<script>alert(1)</script>');
      expect(preview, type).not.toMatch(/<(img|video|audio|iframe|object|embed|script)\b/);
      expect(html, type).not.toContain('<script>alert(1)');
      expect((await request(uploaded.rawUrl)).headers['content-disposition'], type).toMatch(/^attachment;/);
    }
  });

  test('when the file is an SVG, then the page shows its thumbnail (a WebP made on the server), never the SVG itself', async ({
    app,
  }) => {
    const uploaded = await app.upload(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      'drawing.svg',
      'image/svg+xml',
    );
    const { html } = await page(uploaded.url);
    const preview = previewOf(html);
    expect(preview).toContain(`<img src="/f/${uploaded.file.id}/thumbnail" alt="drawing.svg"`);
    expect(preview).not.toMatch(/<(svg|video|audio|iframe|object|embed|pre)\b/);
    expect(preview).not.toContain(rawPath(uploaded));
    expect(html).not.toContain('<script>alert(1)');
  });

  test('when the file is an archive, then the page shows no preview of it, only a note and the download button', async ({
    app,
  }) => {
    const uploaded = await app.upload(
      Buffer.concat([sampleOf('application/zip'), Buffer.from('<script>alert(1)</script>')]),
      'archive.zip',
      'application/zip',
    );
    const { html } = await page(uploaded.url);
    const preview = previewOf(html);
    expect(preview).not.toMatch(/<(img|video|audio|iframe|object|embed|pre)\b/);
    expect(preview).toContain('No preview for this type of file');
    expect(html).toContain(`href="${rawPath(uploaded)}?download=1"`);
    expect(html).not.toContain('<script>alert(1)');
  });
});

describe('OpenGraph and Twitter tags', () => {
  test('when an image is shared, then og:title, og:type, og:url and og:image (the absolute thumbnail URL) are set, with a large Twitter card', async ({
    app,
  }) => {
    const uploaded = await app.upload(sampleOf('image/png', 64), 'sunset.png', 'image/png');
    const { html } = await page(uploaded.url);
    expect(meta(html, 'og:title')).toBe('sunset.png');
    expect(meta(html, 'og:type')).toBe('website');
    expect(meta(html, 'og:url')).toBe(`${app.url}/f/${uploaded.file.id}`);
    expect(meta(html, 'og:image')).toBe(`${app.url}/f/${uploaded.file.id}/thumbnail`);
    expect(meta(html, 'twitter:card')).toBe('summary_large_image');
    expect(meta(html, 'twitter:image')).toBe(`${app.url}/f/${uploaded.file.id}/thumbnail`);
    expect(meta(html, 'og:video')).toBeUndefined();
  });

  test('when a video is shared, then og:video is the absolute raw URL and og:type is video', async ({ app }) => {
    const uploaded = await app.upload(sampleOf('video/webm', 64), 'clip.webm', 'video/webm');
    const { html } = await page(uploaded.url);
    expect(meta(html, 'og:title')).toBe('clip.webm');
    expect(meta(html, 'og:type')).toBe('video.other');
    expect(meta(html, 'og:url')).toBe(`${app.url}/f/${uploaded.file.id}`);
    expect(meta(html, 'og:video')).toBe(`${app.url}/f/${uploaded.file.id}/raw`);
    expect(meta(html, 'og:video:type')).toBe('video/webm');
    expect(meta(html, 'og:image')).toBeUndefined();
  });

  test('when another file is shared, then it has og:title, og:type and og:url but no og:image', async ({ app }) => {
    const uploaded = await app.upload('text', 'notes.txt', 'text/plain');
    const { html } = await page(uploaded.url);
    expect(meta(html, 'og:title')).toBe('notes.txt');
    expect(meta(html, 'og:type')).toBe('website');
    expect(meta(html, 'og:url')).toBe(`${app.url}/f/${uploaded.file.id}`);
    expect(meta(html, 'og:image')).toBeUndefined();
    expect(meta(html, 'twitter:card')).toBe('summary');
  });

  test('when BASE_URL is a public https address with a trailing slash, then the tags use it and the page still loads media by path', async () => {
    const other = await startSharingApp({ BASE_URL: 'https://files.example.com/' });
    try {
      const uploaded = await other.upload(sampleOf('image/png', 64), 'public.png', 'image/png');
      expect(uploaded.url).toBe(`https://files.example.com/f/${uploaded.file.id}`);
      const { status, html } = await page(`${other.url}/f/${uploaded.file.id}`);
      expect(status).toBe(200);
      expect(meta(html, 'og:url')).toBe(`https://files.example.com/f/${uploaded.file.id}`);
      expect(meta(html, 'og:image')).toBe(`https://files.example.com/f/${uploaded.file.id}/thumbnail`);
      expect(previewOf(html)).toContain(`<img src="/f/${uploaded.file.id}/preview"`);
    } finally {
      await other.close();
    }
  });
});

describe('memory', () => {
  /** Timers pending in this process (the app runs in it). */
  const pendingTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

  test('when 40 share pages have been served, then none leaves a timer pending that would keep its render in memory', async ({
    app,
  }) => {
    const uploaded = await app.upload('x'.repeat(100), 'notes.txt', 'text/plain');
    await page(uploaded.url);
    const before = pendingTimers();
    for (let i = 0; i < 40; i++) expect((await page(uploaded.url)).status).toBe(200);
    // Each render's 5 s abort timer, left pending, held its request, React tree and streams.
    expect(pendingTimers() - before).toBeLessThan(10);
  });
});
