// Colouring of a text preview on the server (ADR 0045): highlight.js's core with the languages
// the share page names, each chosen by the file's name, never guessed from its content.
// highlight.js reads the text and writes it back escaped inside <span class="hljs-…"> tags; it
// runs nothing from the file.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import perl from 'highlight.js/lib/languages/perl';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import scss from 'highlight.js/lib/languages/scss';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { codeLines, escapedText } from './code-lines';

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  lua,
  makefile,
  markdown,
  perl,
  php,
  python,
  ruby,
  rust,
  scss,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Previews kept coloured: a file's content never changes under its stored name. */
const REMEMBERED = 64;
const remembered = new Map<string, { html: string; language: string | null }>();

/**
 * The preview's HTML: `text` coloured as `language` by highlight.js, or only escaped when there
 * is no language (or highlight.js fails on it). Either way it is what `codeLines` reads back.
 * Colouring 64 KiB takes highlight.js some hundred milliseconds, so the last previews coloured
 * are kept, by `key` (the content's stored name and the language): a link opened by many, or
 * unfurled by several chat apps, is coloured once.
 */
export function highlightedText(
  text: string,
  language: string | null,
  key?: string,
): { html: string; language: string | null } {
  if (!language) return { html: escapedText(text), language: null };
  const cacheKey = key === undefined ? undefined : `${key}\n${language}`;
  const known = cacheKey === undefined ? undefined : remembered.get(cacheKey);
  if (known) {
    // Most recently used last: the first key is the one to forget.
    remembered.delete(cacheKey as string);
    remembered.set(cacheKey as string, known);
    return known;
  }
  const made = colour(text, language);
  if (cacheKey !== undefined) {
    remembered.set(cacheKey, made);
    if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  }
  return made;
}

function colour(text: string, language: string): { html: string; language: string | null } {
  if (hljs.getLanguage(language)) {
    try {
      const html = hljs.highlight(text, { language, ignoreIllegals: true }).value;
      // Only what codeLines accepts leaves here (it refuses any tag but highlight.js's spans).
      if (codeLines(html)) return { html, language };
    } catch {
      // A grammar that gives up on some input: the text is shown uncoloured.
    }
  }
  return { html: escapedText(text), language: null };
}
