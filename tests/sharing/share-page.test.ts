// What a share page (/f/<id>) tells the person a link was sent to: the file's type in words, a
// Download button with its size, when the link stops working and how many downloads it has left,
// source in colour with its markup shown as text, and link-preview cards that use the thumbnail
// and never come from a protected or limited link. Plain HTTP, as a browser without JavaScript.
import { sampleOf } from '../helpers/file-samples';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, makePng, postForm, visibleText } from '../helpers/pages-fixtures';
import type { TestApp } from '../helpers/app';

async function sharePage(app: TestApp, id: string, cookie?: string) {
  const res = await getPage(app, `/f/${id}`, cookie);
  return { status: res.status, html: await res.text() };
}

/** The content of <meta property|name="key" content="…">, or undefined. */
function meta(html: string, key: string): string | undefined {
  const tag = new RegExp(`<meta (?:property|name)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)"`).exec(html);
  return tag?.[1].replace(/&amp;/g, '&');
}

/** The page's facts, as a reader sees them: { Size: '…', Type: '…', … }. */
function factsOf(html: string): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const [, term, value] of html.matchAll(/<dt>([^<]*)<\/dt><dd[^>]*>([\s\S]*?)<\/dd>/g)) {
    facts[term] = visibleText(value);
  }
  return facts;
}

/** The HTML inside the text preview's <pre>. */
function preOf(html: string): string {
  const pre = /<pre class="text-preview"[^>]*>([\s\S]*?)<\/pre>/.exec(html);
  expect(pre, 'a text preview').not.toBeNull();
  return pre![1];
}

describe('the type in words', () => {
  test('when files of common types are shared, then the page names each type in words, never as a bare MIME type', async ({
    app,
    alice,
  }) => {
    // A file's type is read from its bytes (ADR 0064): each is sent with bytes of its kind.
    const text = 'some content';
    const binary = Buffer.from([0, 1, 2, 3]);
    const cases = [
      ['photo.png', 'image/png', 'PNG image', sampleOf('image/png', 64)],
      ['photo.jpg', 'image/jpeg', 'JPEG image', sampleOf('image/jpeg', 64)],
      ['paper.pdf', 'application/pdf', 'PDF document', sampleOf('application/pdf', 64)],
      ['clip.mp4', 'video/mp4', 'MP4 video', sampleOf('video/mp4', 64)],
      ['notes.txt', 'text/plain', 'Plain text', text],
      ['bundle.zip', 'application/zip', 'ZIP archive', sampleOf('application/zip', 64)],
      // A browser sends a .ts file as an MPEG transport stream: its text says otherwise.
      ['server.ts', 'video/mp2t', 'TypeScript source', text],
      ['main.go', 'application/octet-stream', 'Go source', text],
      ['Dockerfile', 'application/octet-stream', 'Dockerfile', text],
      ['backup.qzx', 'application/octet-stream', 'QZX file', binary],
      ['README', 'application/octet-stream', 'File', binary],
    ] as const;
    const pages = await Promise.all(
      cases.map(async ([name, type, _words, content]) => {
        const { file } = await alice.upload(content, name, type);
        return sharePage(app, file.id);
      }),
    );
    cases.forEach(([name, type, words], index) => {
      const { status, html } = pages[index];
      expect(status, name).toBe(200);
      expect(factsOf(html).Type, name).toBe(words);
      expect(meta(html, 'description'), name).toContain(words);
      expect(visibleText(html), name).not.toContain(type);
    });
    // The first test of the file also starts the app and registers the user.
  }, 60_000);

  test('when a .ts file is in fact a video (not text), then it is not called TypeScript source and shows no text', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(
      Buffer.from([0x47, 0x00, 0x11, 0x10, 0x00, 0x42]),
      'recording.ts',
      'video/mp2t',
    );
    const { html } = await sharePage(app, file.id);
    expect(factsOf(html).Type).toBe('TS file');
    expect(html).not.toContain('class="text-preview"');
    expect(visibleText(html)).toContain('No preview for this type of file');
  });
});

describe('the download button and the link limits', () => {
  test('when a visitor opens a link with an expiry and a download limit, then the page says when it expires, how many downloads are left, and offers "Download (size)"', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload('x'.repeat(2500), 'minutes.txt', 'text/plain', {
      expiresIn: String(3 * 86400),
      maxDownloads: '3',
    });
    const { html } = await sharePage(app, file.id);
    const text = visibleText(html);
    expect(text).toContain('Download (2.4 KiB)');
    expect(text).toMatch(/Expires on \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC · 3 downloads left/);
    const button = /<a class="button share-download" href="([^"]+)" download="">/.exec(html);
    expect(button?.[1]).toBe(`/f/${file.id}/raw?download=1`);

    // One download later the page counts one fewer.
    expect((await fetch(`${app.url}/f/${file.id}/raw?download=1`)).status).toBe(200);
    expect(visibleText((await sharePage(app, file.id)).html)).toContain('2 downloads left');
  });

  test('when the owner opens their page, then the facts say "expires in 3 days" and the downloads used, and the Download button has the size', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(makePng(), 'chart.png', 'image/png', {
      expiresIn: String(3 * 86400),
      maxDownloads: '5',
    });
    const { html } = await sharePage(app, file.id, alice.cookie);
    const facts = factsOf(html);
    expect(facts.Link).toBe('expires in 3 days');
    expect(facts.Downloads).toBe('0 / 5');
    expect(facts.Type).toBe('PNG image');
    expect(visibleText(html)).toMatch(/Download \(\d+ bytes\)/);
    // The owner's forms stay on the page.
    expect(html).toMatch(/<form[^>]*aria-label="Link settings"/);
    expect(html).toContain('name="originalName"');
  });
});

describe('link-preview cards', () => {
  test('when a plain image is shared, then og:image and twitter:image are the absolute thumbnail URL with a large card, and that thumbnail is served', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(makePng(640, 480), 'garden.png', 'image/png');
    const { html } = await sharePage(app, file.id);
    const thumbnail = `${app.url}/f/${file.id}/thumbnail`;
    expect(meta(html, 'og:image')).toBe(thumbnail);
    expect(meta(html, 'twitter:image')).toBe(thumbnail);
    expect(meta(html, 'twitter:card')).toBe('summary_large_image');
    expect(meta(html, 'og:description')).toMatch(/^\d+(\.\d)? (bytes|KiB) · PNG image$/);
    // A chat app fetching it, with no cookie, gets the WebP.
    let res = await fetch(thumbnail);
    for (let tries = 0; res.status === 404 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      res = await fetch(thumbnail);
    }
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
  });

  test('when an SVG is shared, then its card is its thumbnail, never the SVG', async ({ app, alice }) => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40"/></svg>';
    const { file } = await alice.upload(svg, 'logo.svg', 'image/svg+xml');
    const { html } = await sharePage(app, file.id);
    expect(meta(html, 'og:image')).toBe(`${app.url}/f/${file.id}/thumbnail`);
    expect(html).toContain(`<img src="/f/${file.id}/thumbnail"`);
    expect(html).not.toContain(`<img src="/f/${file.id}/raw"`);
    expect(html).not.toContain(`<img src="/f/${file.id}/preview"`);
  });

  test('when a password-protected image is opened with its password, then the page has no og:image, no twitter:image and names nothing in its tags', async ({
    app,
    alice,
  }) => {
    const { file } = await alice.upload(makePng(), 'private-photo.png', 'image/png', { password: 'open sesame' });
    const locked = await sharePage(app, file.id);
    expect(locked.status).toBe(401);
    expect(locked.html).not.toContain('og:image');
    const unlock = await postForm(app, `/f/${file.id}`, { intent: 'unlock', password: 'open sesame' });
    expect(unlock.status).toBe(303);
    const grant = unlock.headers.getSetCookie()[0].split(';')[0];
    const opened = await sharePage(app, file.id, grant);
    expect(opened.status).toBe(200);
    expect(opened.html).toContain('<img src="/f/');
    expect(opened.html).not.toContain('og:image');
    expect(opened.html).not.toContain('twitter:image');
    expect(meta(opened.html, 'og:title')).toBeUndefined();
  });

  test('when a link counts downloads, then its page has no og:image and no og:video: a card fetched by a chat app would get nothing or use one up', async ({
    app,
    alice,
  }) => {
    const image = await alice.upload(makePng(), 'limited.png', 'image/png', { maxDownloads: '2' });
    const video = await alice.upload('webm', 'limited.webm', 'video/webm', { maxDownloads: '2' });
    for (const { file } of [image, video]) {
      const { html } = await sharePage(app, file.id);
      expect(meta(html, 'og:title')).toBe(file.originalName);
      expect(meta(html, 'og:image')).toBeUndefined();
      expect(meta(html, 'og:video')).toBeUndefined();
      expect(meta(html, 'twitter:card')).toBe('summary');
    }
    // The thumbnail itself is not served to a visitor of a counting link.
    expect((await fetch(`${app.url}/f/${image.file.id}/thumbnail`)).status).toBe(404);
  });
});

describe('source in colour', () => {
  test('when a TypeScript file is shared, then its preview is coloured by highlight.js (keyword, string, comment spans), one numbered line per line', async ({
    app,
    alice,
  }) => {
    const source = [
      '// Greets whoever is there.',
      'export function greet(name: string): string {',
      '  return "Hello, " + name;',
      '}',
      '',
    ].join('\n');
    const { file } = await alice.upload(source, 'greet.ts', 'video/mp2t');
    const { html } = await sharePage(app, file.id);
    const pre = preOf(html);
    expect(pre).toContain('<code class="hljs language-typescript">');
    expect(pre).toContain('<span class="hljs-comment">// Greets whoever is there.</span>');
    expect(pre).toContain('<span class="hljs-keyword">export</span>');
    expect(pre).toContain('<span class="hljs-string">&quot;Hello, &quot;</span>');
    expect(pre.match(/<span class="line">/g)).toHaveLength(4);
  });

  test('when source holds <script> and <img onerror>, then the page shows them as text and never as markup', async ({
    app,
    alice,
  }) => {
    const hostile = [
      '<script>alert(document.cookie)</script>',
      '<img src=x onerror="alert(1)">',
      'const s = "</span><script>alert(2)</script>";',
      '/* </code></pre><iframe src=javascript:alert(3)> */',
      '',
    ].join('\n');
    for (const [name, type, query] of [
      ['page.html', 'text/html', ''],
      ['hostile.ts', 'video/mp2t', ''],
      // Markdown's source view (its rendered view: tests/sharing/markdown-preview.test.ts).
      ['notes.md', 'text/markdown', '?view=source'],
      ['plain.txt', 'text/plain', ''],
    ]) {
      const { file } = await alice.upload(hostile, name, type);
      const { html } = await sharePage(app, `${file.id}${query}`);
      const pre = preOf(html);
      // Nothing but the preview's own spans and escaped text inside the <pre>.
      expect(pre.replace(/<\/?(code|span)( class="[\w -]+")?>/g, ''), name).not.toContain('<');
      expect(html, name).not.toContain('<script>alert');
      expect(html, name).not.toMatch(/<img src=x/);
      expect(html, name).not.toMatch(/<iframe src=javascript/);
      expect(pre, name).toContain('&lt;');
      expect(pre, name).toContain('onerror');
      // What the reader sees is the file's text, line for line.
      const text = pre
        .replace(/<[^>]+>/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#x27;/g, "'")
        .replace(/&amp;/g, '&');
      expect(text, name).toBe(hostile);
    }
  });
});
