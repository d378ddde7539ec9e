// A Markdown file's preview on the share page (ADR 0069): markdown-it's HTML, made in the
// highlighter's worker threads within the colouring budget (ADR 0054), then checked here against
// what markdown-it is set to make, before the page puts it in as HTML. Anything else (a budget
// spent, HTML too long, a tag or link the check does not know) shows the file as plain text.
import type { Rendering } from '../../server/highlight/highlighter';

/** Renders a Markdown text (the service of the load context: `services.textPreviews`). */
type Render = (input: { text: string }) => Promise<Rendering>;

/** Renderings kept: a file's content never changes under its stored name. */
const REMEMBERED = 64;
const remembered = new Map<string, string | null>();

/**
 * The HTML of `text` rendered, or null when the page should show it as text. The last ones are
 * kept by `key` (the content's stored name), a lasting failure too (over budget, too long): a
 * link opened by many costs one rendering, and a hostile file costs its budget once.
 */
export async function renderedMarkdown(text: string, render: Render, key: string): Promise<string | null> {
  const known = remembered.get(key);
  if (known !== undefined) {
    // Most recently used last: the first key is the one to forget.
    remembered.delete(key);
    remembered.set(key, known);
    return known;
  }
  const rendering = await render({ text });
  const html = rendering.kind === 'rendered' && isExpectedMarkup(rendering.html) ? rendering.html : null;
  if (rendering.kind === 'rendered' || rendering.lasting) {
    remembered.set(key, html);
    if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  }
  return html;
}

/** The elements markdown-it makes with `html: false` and no plugins. */
const ELEMENTS = new Set([
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li', 'pre', 'code', 'hr', 'br'],
  ...['em', 'strong', 's', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
]);

/** Each attribute markdown-it sets, and the values it may have (already escaped). */
const ATTRIBUTES = new Map<string, RegExp>([
  ['href', /^(?:https?:|mailto:)/i],
  ['rel', /^nofollow noopener noreferrer$/],
  ['class', /^(?:markdown-image|language-[^"]*)$/],
  ['title', /^[^"]*$/],
  ['start', /^\d+$/],
  ['style', /^text-align:(?:left|right|center)$/],
]);

const TAG = /<\/?([a-z][a-z0-9]*)((?:\s+[a-z]+="[^"<>]*")*)\s*>/g;
const ATTRIBUTE = /\s+([a-z]+)="([^"<>]*)"/g;

/**
 * Whether `html` holds nothing but the elements and attributes above, links to the web and
 * e-mail only. markdown-it escapes every `<` of the text, so any other `<` is a tag it made: a
 * guard against a change of its options (ADR 0069), read in one pass over the HTML.
 */
function isExpectedMarkup(html: string): boolean {
  let unknown = false;
  const rest = html.replace(TAG, (_tag, element: string, attributes: string) => {
    if (!ELEMENTS.has(element)) unknown = true;
    for (const [, name, value] of attributes.matchAll(ATTRIBUTE))
      if (!ATTRIBUTES.get(name)?.test(value)) unknown = true;
    return '';
  });
  return !unknown && !/[<>]/.test(rest);
}
