// A text preview's HTML (highlight.js's output, or text escaped the same way) read back into
// lines of text and coloured spans, for React to draw: the page never sets it as HTML. Only
// `<span class="…">`, `</span>` and escaped text are accepted; anything else (a tag, a stray
// `<`) refuses the whole of it (ADR 0045).

/** A run of text, or a coloured span (its highlight.js classes) holding more of them. */
export type CodeSegment = string | { className: string; children: CodeSegment[] };

/** The lines of a preview, and whether its text ended with a line break. */
interface CodeLines {
  lines: CodeSegment[][];
  finalNewline: boolean;
}

/**
 * Bounds on the spans, which a crafted file can otherwise make grow as the square of its size
 * (each span open at a line break is opened again on the next line, and React draws nested spans
 * by recursion): highlight.js nests a few deep in source, and a 64 KiB preview carries a few
 * thousand spans over its line breaks. Past either, the preview is refused and shown uncoloured.
 */
const MAX_OPEN_SPANS = 20;
const MAX_SPANS_OPENED_AGAIN = 20_000;

const TOKEN = /<span class="([A-Za-z0-9_ -]{1,80})">|<\/span>|([^<]+)/y;
const ENTITY = /&(amp|lt|gt|quot|#x27|#39);/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" };
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' };

/** `text` escaped as highlight.js escapes it: what `codeLines` reads as plain text. */
export function escapedText(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

/**
 * The lines of a preview's HTML, each with its spans closed at the line's end and opened again on
 * the next one (a comment over three lines is coloured on all three); null when the HTML holds
 * anything but spans and escaped text, its spans do not nest, or they pass the bounds above. Its
 * time grows as the HTML's length.
 */
export function codeLines(html: string): CodeLines | null {
  const lines: CodeSegment[][] = [];
  let line: CodeSegment[] = [];
  const classes: string[] = [];
  let open: Array<{ className: string; children: CodeSegment[] }> = [];
  const into = () => (open.length === 0 ? line : open[open.length - 1].children);
  const openSpan = (className: string) => {
    const span = { className, children: [] as CodeSegment[] };
    into().push(span);
    open.push(span);
  };
  let openedAgain = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const at = TOKEN.lastIndex;
    const token = TOKEN.exec(html);
    if (!token || token.index !== at) return null;
    if (token[1] !== undefined) {
      if (classes.length === MAX_OPEN_SPANS) return null;
      classes.push(token[1]);
      openSpan(token[1]);
    } else if (token[2] !== undefined) {
      const parts = token[2].replace(ENTITY, (_, name: string) => ENTITIES[name]).split('\n');
      openedAgain += (parts.length - 1) * classes.length;
      if (openedAgain > MAX_SPANS_OPENED_AGAIN) return null;
      parts.forEach((part, index) => {
        if (index > 0) {
          lines.push(line);
          line = [];
          open = [];
          for (const className of classes) openSpan(className);
        }
        if (part !== '') into().push(part);
      });
    } else {
      if (classes.length === 0) return null;
      classes.pop();
      open.pop();
    }
  }
  if (classes.length > 0) return null;
  lines.push(line);
  // "a\nb\n" is two lines, not two and an empty third; the break itself is kept.
  const finalNewline = lines.length > 1 && isEmpty(lines[lines.length - 1]);
  if (finalNewline) lines.pop();
  return { lines, finalNewline };
}

function isEmpty(segments: CodeSegment[]): boolean {
  return segments.every((segment) => typeof segment !== 'string' && isEmpty(segment.children));
}
