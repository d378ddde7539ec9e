// A text preview's HTML for the share page (ADR 0045): source coloured by highlight.js, which runs
// in the highlighter's worker thread within a time budget (ADR 0054), or the text only escaped.
// The language is chosen by the file's name (share-file-type.ts), never guessed from its content.
import type { Colouring } from '../../server/highlight/highlighter';
import { codeLines, escapedText } from './code-lines';

/** A preview as the page draws it: HTML that `codeLines` reads back, and its language if coloured. */
interface TextPreviewHtml {
  html: string;
  language: string | null;
}

/** Colours a text as a language (the service of the load context: `services.textPreviews`). */
type Colour = (input: { text: string; language: string }) => Promise<Colouring>;

/** Previews kept: a file's content never changes under its stored name. */
const REMEMBERED = 64;
const remembered = new Map<string, TextPreviewHtml>();

/**
 * The preview's HTML: `text` coloured as `language`, or only escaped when there is no language,
 * highlight.js gives up on it or does not finish within its budget. The last previews are kept
 * by `key` (the content's stored name and the language), uncoloured ones too when they would come
 * out the same again: a link opened by many, or unfurled by several chat apps, costs one colouring,
 * and a file that takes too long costs its budget once.
 */
export async function highlightedText(
  text: string,
  language: string | null,
  colour: Colour,
  key?: string,
): Promise<TextPreviewHtml> {
  if (!language) return uncoloured(text);
  const cacheKey = key === undefined ? undefined : `${key}\n${language}`;
  const known = cacheKey === undefined ? undefined : remembered.get(cacheKey);
  if (cacheKey !== undefined && known) {
    // Most recently used last: the first key is the one to forget.
    remembered.delete(cacheKey);
    remembered.set(cacheKey, known);
    return known;
  }
  const colouring = await colour({ text, language });
  // Only what codeLines accepts is kept coloured (it refuses any tag but highlight.js's spans).
  const made = colouring.kind === 'coloured' && codeLines(colouring.html) ? { html: colouring.html, language } : null;
  const preview = made ?? uncoloured(text);
  const lasting = colouring.kind === 'coloured' || colouring.lasting;
  if (cacheKey !== undefined && lasting) {
    remembered.set(cacheKey, preview);
    if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  }
  return preview;
}

function uncoloured(text: string): TextPreviewHtml {
  return { html: escapedText(text), language: null };
}
