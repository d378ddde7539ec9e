// "Characters" as the rules count them (a password's 8, a secret's 32): Unicode code points.
// String.length counts UTF-16 units, two for an emoji.
//
// And the characters no text a person types keeps (ADR 0059): the control characters (NUL,
// which PostgreSQL refuses in text, among them), the line and paragraph separators, and the
// bidirectional formatting characters that make "evil\u202egpj.exe" look like "evilexe.jpg".
// One line of text (a name, a title) keeps none of them; a text of several lines (a message,
// a note) keeps its line breaks and tabs.

/** The number of Unicode code points in `text`. */
export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** What one line of text never holds: C0 and C1 controls, DEL, U+2028/2029, and the bidi embeddings, overrides, isolates and marks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
const UNSAFE_IN_A_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/** What a text of several lines never holds: the same, but for the line feed and the tab. */
const UNSAFE_IN_LINES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/** Half of a surrogate pair alone: no character, and no UTF-8 (nor a Content-Disposition header) can carry it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** One line of text or several: a several-line text keeps "\n" and "\t". */
export type TextKind = 'line' | 'lines';

function unsafeIn(kind: TextKind): RegExp {
  return kind === 'line' ? UNSAFE_IN_A_LINE : UNSAFE_IN_LINES;
}

/** Line breaks as one "\n": a browser sends a textarea's as "\r\n". */
export function withUnixLineBreaks(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Whether `text` holds a character text of its kind never keeps (a lone surrogate among them). */
export function hasUnsafeCharacters(text: string, kind: TextKind): boolean {
  // `search`, not `test`: it starts at 0 whatever a global pattern's lastIndex.
  return text.search(unsafeIn(kind)) !== -1 || text.search(LONE_SURROGATE) !== -1;
}

/**
 * `text` without the characters text of its kind never keeps (a several-line text's line breaks
 * made "\n" first), a lone surrogate made U+FFFD, and trimmed.
 */
export function withoutUnsafeCharacters(text: string, kind: TextKind): string {
  const lines = kind === 'lines' ? withUnixLineBreaks(text) : text;
  return lines.replace(LONE_SURROGATE, '\uFFFD').replace(unsafeIn(kind), '').trim();
}
