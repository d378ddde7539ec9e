// A text preview never holds the server up (ADR 0054): highlight.js colours it in a worker thread
// within a time budget, and what the page does with its output takes time in step with its size.
// Each crafted file below takes highlight.js (or the reading of its output) seconds to minutes;
// while its page is drawn, the health check and another file's raw link answer at once, and the
// page shows the file's text, uncoloured.
import { describe, expect } from 'vitest';
import { probeWhileAnswering } from '../helpers/outside-client';
import { test, type SharingApp, type Uploaded } from './support';

/**
 * What answering "at once" allows: less than one colouring's budget (a second, ADR 0054), which
 * anything that waited for a colouring would take. A quiet machine answers these probes in
 * 5–30 ms; one shared with other work (load 20 on two cores) in up to 900 ms. Coloured on the
 * event loop, each crafted file below holds every request for seconds on a quiet machine and
 * for minutes on a busy one.
 */
const PROMPT_MS = 1000;

/** The HTML inside the text preview's <pre>. */
function preOf(html: string): string {
  const pre = /<pre class="text-preview"[^>]*>([\s\S]*?)<\/pre>/.exec(html);
  expect(pre, 'a text preview').not.toBeNull();
  return pre![1];
}

/** The text a reader sees in a preview. */
function textOf(pre: string): string {
  return pre
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');
}

/**
 * The page of `file`, opened as its owner (drawn anew every time, ADR 0051), with /healthz and
 * `other`'s raw link asked just after it, and again a quarter of a second later if it is still
 * being drawn.
 */
async function openWhileProbing(app: SharingApp, file: Uploaded, other: Uploaded, query = '') {
  return probeWhileAnswering(`${file.url}${query}`, {
    headers: { cookie: app.cookie },
    probes: [`${app.url}/healthz`, other.rawUrl],
    firstAfterMs: 20,
    everyMs: 250,
    rounds: 2,
  });
}

const CRAFTED = [
  // Markdown's source: links that never close (20 KB take highlight.js some 30 s on a quiet
  // machine). Its rendered view: tests/sharing/markdown-preview.test.ts.
  { name: 'links.md', type: 'text/markdown', text: '[a]('.repeat(5_000), query: '?view=source' },
  // TOML/INI: a key that never meets its "=".
  { name: 'settings.ini', type: 'application/octet-stream', text: 'a'.repeat(32_000), query: '' },
  // Java: one long word.
  { name: 'Main.java', type: 'text/x-java', text: 'a'.repeat(24_000), query: '' },
  // C#: generic types one after another.
  { name: 'Program.cs', type: 'application/octet-stream', text: 'a<b> '.repeat(1_000), query: '' },
  // JavaScript, coloured in a moment; but 400 nested template strings (800 spans) held open over
  // 2,000 lines would be 1.6 million spans to read back and draw (and React draws nested spans by
  // recursion, deeper than its stack).
  { name: 'nested.js', type: 'text/javascript', text: '`${'.repeat(400) + 'x\n'.repeat(2_000), query: '' },
];

describe('text previews within a budget', () => {
  let other: Uploaded;
  test.beforeAll(async ({ app }) => {
    other = await app.upload('another file, downloaded while a preview is drawn\n', 'other.txt', 'text/plain');
    // The app's first answers of each kind are slow (its code is not compiled yet): those are not
    // what the probes measure.
    const warm = await app.upload('export const warm = true;\n', 'warm.ts', 'video/mp2t');
    for (let round = 0; round < 5; round += 1) {
      for (const url of [`${app.url}/healthz`, other.rawUrl, warm.url, other.url]) await (await fetch(url)).text();
    }
  });

  test('when ordinary TypeScript is opened, then its preview is still coloured', async ({ app }) => {
    const source = [
      '// Greets whoever is there.',
      'export function greet(name: string): string {',
      '  return "Hello, " + name;',
      '}',
      '',
    ]
      .join('\n')
      .repeat(50);
    const file = await app.upload(source, 'greet.ts', 'video/mp2t');
    const { first: page } = await openWhileProbing(app, file, other);
    const pre = preOf(page.body);
    expect(pre).toContain('<code class="hljs language-typescript">');
    expect(pre).toContain('<span class="hljs-keyword">export</span>');
    expect(pre).toContain('<span class="hljs-comment">// Greets whoever is there.</span>');
    expect(textOf(pre)).toBe(source);
  });

  test.for(CRAFTED)(
    'when $name, crafted to be slow to colour, is opened, then /healthz and another file’s raw link answer at once while its page is drawn, and the page shows its text uncoloured',
    { timeout: 60_000 },
    async ({ name, type, text, query }, { app }) => {
      const file = await app.upload(text, name, type);
      const { first: page, probes } = await openWhileProbing(app, file, other, query);

      expect(page.status).toBe(200);
      expect(probes.length, 'probes sent while the page was drawn').toBeGreaterThan(0);
      for (const probe of probes) {
        expect(probe.status, probe.url).toBe(200);
        expect(probe.ms, `${probe.url} sent ${Math.round(probe.sentAt)} ms after the page`).toBeLessThan(PROMPT_MS);
      }
      const pre = preOf(page.body);
      expect(textOf(pre)).toBe(text);
      expect(pre).not.toContain('hljs');
    },
  );

  test('when a file that took its whole budget is opened again, then its page comes without waiting for another', async ({
    app,
  }) => {
    const file = await app.upload('[a]('.repeat(5_000), 'again.md', 'text/markdown');
    const first = await openWhileProbing(app, file, other, '?view=source');
    expect(preOf(first.first.body)).not.toContain('hljs');
    const again = await openWhileProbing(app, file, other, '?view=source');
    expect(again.first.status).toBe(200);
    expect(textOf(preOf(again.first.body))).toBe('[a]('.repeat(5_000));
    // The first look waited for a thread and a whole budget (a second); another attempt would too.
    expect(again.first.ms).toBeLessThan(first.first.ms - 500);
  }, 60_000);
});
