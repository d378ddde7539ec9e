// A Markdown file's share page (ADR 0069), as a browser without JavaScript gets it: the text
// rendered on the server (headings, emphasis, lists, links), its source a link away; whatever
// the file holds that could run or reach elsewhere (a script, raw HTML, a javascript: link, an
// image on another site) is shown as text or as a plain link, and rendering it never holds the
// server up: past its budget the page shows the text.
import { describe, expect } from 'vitest';
import { probeWhileAnswering } from '../helpers/outside-client';
import { visibleText } from '../helpers/pages-fixtures';
import { request, startSharingApp, type SharingApp, test } from './support';

async function page(url: string, cookie?: string) {
  const res = await request(url, { headers: cookie ? { cookie } : {} });
  return { status: res.status, html: res.body.toString('utf8') };
}

/** The rendered Markdown, or null when the page shows none. */
function renderedOf(html: string): string | null {
  return /<div class="markdown-body">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? null;
}

/** The links between the two views: their text, where they lead, and which is the page shown. */
function viewsOf(html: string): Array<{ text: string; href: string; current: boolean }> {
  const nav = /<nav class="markdown-views"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)"( aria-current="page")?>([^<]*)<\/a>/g)].map(([, href, current, text]) => ({
    text,
    href: href.replace(/&amp;/g, '&'),
    current: current !== undefined,
  }));
}

/** The HTML inside the text preview's <pre>, or null. */
function preOf(html: string): string | null {
  return /<pre class="text-preview"[^>]*>([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? null;
}

const README = [
  '# Release notes',
  '',
  'The **new** version is *faster*. See [the site](https://example.com/docs?a=1&b=2) or [mail us](mailto:team@example.com).',
  '',
  '- one',
  '- two',
  '',
  '```sh',
  'npm start',
  '```',
  '',
].join('\n');

describe('a Markdown file on its share page', () => {
  test('when a Markdown file is opened, then its page shows it rendered on the server, and a link shows its source, which links back', async ({
    app,
  }) => {
    const { file, url } = await app.upload(README, 'NOTES.md', 'text/markdown');
    const rendered = await page(url);
    expect(rendered.status).toBe(200);
    const body = renderedOf(rendered.html);
    expect(body).not.toBeNull();
    expect(body).toContain('<h1>Release notes</h1>');
    expect(body).toContain('<strong>new</strong>');
    expect(body).toContain('<em>faster</em>');
    expect(body).toContain('<li>one</li>');
    expect(body).toContain('<pre><code class="language-sh">npm start\n</code></pre>');
    expect(body).toContain(
      '<a href="https://example.com/docs?a=1&amp;b=2" rel="nofollow noopener noreferrer">the site</a>',
    );
    expect(body).toContain('<a href="mailto:team@example.com" rel="nofollow noopener noreferrer">mail us</a>');
    // Rendered, not shown twice: no source below it.
    expect(preOf(rendered.html)).toBeNull();
    expect(viewsOf(rendered.html)).toEqual([
      { text: 'Rendered', href: `/f/${file.id}`, current: true },
      { text: 'Source', href: `/f/${file.id}?view=source`, current: false },
    ]);

    const source = await page(`${url}?view=source`);
    expect(source.status).toBe(200);
    expect(renderedOf(source.html)).toBeNull();
    const pre = preOf(source.html);
    expect(pre).toContain('<code class="hljs language-markdown">');
    expect(visibleText(pre ?? '')).toContain('# Release notes');
    expect(viewsOf(source.html)).toEqual([
      { text: 'Rendered', href: `/f/${file.id}`, current: false },
      { text: 'Source', href: `/f/${file.id}?view=source`, current: true },
    ]);
  });

  test('when Markdown holds a script, raw HTML, a javascript: link, an image on another site and an <img onerror>, then the page shows them as text or as plain links and loads nothing', async ({
    app,
  }) => {
    const hostile = [
      '<script>alert(1)</script>',
      '',
      '[x](javascript:alert(1)) [y](JavaScript:alert(2)) [d](data:text/html,<b>z</b>) <javascript:alert(3)>',
      '',
      '![i](http://evil.example/t.png)',
      '',
      '[![badge](https://evil.example/badge.svg)](https://example.com/project)',
      '',
      '<img src=x onerror="alert(4)">',
      '',
      '<a href="https://example.com" onclick="alert(5)">raw link</a>',
      '',
      '```js" onmouseover="alert(6)',
      'code',
      '```',
      '',
    ].join('\n');
    const { url } = await app.upload(hostile, 'hostile.md', 'text/markdown');
    const { status, html } = await page(url);
    expect(status).toBe(200);
    const body = renderedOf(html);
    expect(body).not.toBeNull();
    // Raw HTML is the text it was written as.
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).toContain('&lt;img src=x onerror=&quot;alert(4)&quot;&gt;');
    expect(body).toContain('&lt;a href=&quot;https://example.com&quot; onclick=&quot;alert(5)&quot;&gt;raw link');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/<img[^>]*(evil|onerror|src=x)/);
    // Links only to the web and e-mail: the rest stay text.
    expect(body).toContain('[x](javascript:alert(1))');
    expect(body).not.toMatch(/href="(?!https?:|mailto:)/i);
    expect(body).not.toMatch(/\son[a-z]+="/i);
    // An image on another site is a link to it, never loaded; inside a link, its words.
    expect(body).toContain(
      '<a href="http://evil.example/t.png" rel="nofollow noopener noreferrer" class="markdown-image">Image: i</a>',
    );
    expect(body).toContain('<a href="https://example.com/project" rel="nofollow noopener noreferrer">Image: badge</a>');
    expect(body).not.toMatch(/<(img|script|iframe|object|embed|style|svg|form|input)\b/i);
    // The page's own policy still allows images from itself only.
    const res = await request(url);
    expect(String(res.headers['content-security-policy'])).toContain("img-src 'self' data: blob:");
  });

  test('when a Markdown file is longer than the preview shows, then the rendered part says it is cut', async ({
    app,
  }) => {
    const long = `# Long\n\n${'A line of the long file.\n'.repeat(4_000)}`;
    const { url } = await app.upload(long, 'long.md', 'text/markdown');
    const { html } = await page(url);
    expect(renderedOf(html)).toContain('<h1>Long</h1>');
    expect(visibleText(html)).toContain('Preview truncated: only the first 64 KiB are shown.');
  });
});

/** What answering "at once" allows (tests/sharing/text-preview-budget.test.ts says why). */
const PROMPT_MS = 1000;

/** 20 KB that markdown-it parses slowly: images that never close, each inside the last. */
const PATHOLOGICAL = '!['.repeat(10_000);

describe('rendering within a budget', () => {
  test('when 20 KB of crafted Markdown is opened, then /healthz and another file’s raw link answer at once while its page is drawn', {
    timeout: 60_000,
  }, async ({ app }) => {
    const other = await app.upload('another file\n', 'other.txt', 'text/plain');
    for (let round = 0; round < 5; round += 1)
      for (const warm of [`${app.url}/healthz`, other.rawUrl]) await (await fetch(warm)).text();
    for (const text of [PATHOLOGICAL, '[a]('.repeat(5_000), '>'.repeat(20_000), '*a'.repeat(10_000)]) {
      const file = await app.upload(text, 'crafted.md', 'text/markdown');
      const { first, probes } = await probeWhileAnswering(file.url, {
        headers: { cookie: app.cookie },
        probes: [`${app.url}/healthz`, other.rawUrl],
        firstAfterMs: 20,
        everyMs: 250,
        rounds: 2,
      });
      expect(first.status).toBe(200);
      for (const probe of probes) {
        expect(probe.status, probe.url).toBe(200);
        expect(probe.ms, `${probe.url} sent ${Math.round(probe.sentAt)} ms after the page`).toBeLessThan(PROMPT_MS);
      }
      // Rendered, or shown as text: either way the file's words are there.
      expect(renderedOf(first.body) ?? preOf(first.body)).not.toBeNull();
    }
  });

  describe('past the budget', () => {
    let tight: SharingApp;
    test.beforeAll(async () => {
      // A budget no rendering of this text meets, so that what the page does past it is seen.
      tight = await startSharingApp({}, { previewBudgetMs: 20 });
    });
    test.afterAll(async () => {
      await tight?.close();
    });

    test('when a Markdown file takes longer than its budget to render, then its page shows its text, says so, and still links to both views', {
      timeout: 60_000,
    }, async () => {
      const text = `${'!['.repeat(30_000)}\n`;
      const { file, url } = await tight.upload(text, 'slow.md', 'text/markdown');
      const { status, html } = await page(url, tight.cookie);
      expect(status).toBe(200);
      expect(renderedOf(html)).toBeNull();
      const pre = preOf(html);
      expect(pre).not.toBeNull();
      expect(pre).not.toContain('hljs');
      expect(visibleText(pre ?? '')).toBe(text.trim());
      expect(visibleText(html)).toContain('Shown as text: this Markdown could not be rendered.');
      expect(viewsOf(html).map(({ href }) => href)).toEqual([`/f/${file.id}`, `/f/${file.id}?view=source`]);
    });
  });
});
