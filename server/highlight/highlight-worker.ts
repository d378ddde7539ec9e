// The worker thread that colours a text preview (ADR 0045, 0054): highlight.js's core with the
// languages the share page names, each chosen by the file's name, never guessed from its content.
// highlight.js reads the text and writes it back escaped inside <span class="hljs-…"> tags; it runs
// nothing from the file. Some of its grammars take time that grows much faster than the text on
// crafted input, so this runs off the event loop, in a thread the pool ends when the budget is
// spent (highlighter.ts). The same threads render a Markdown file's preview (ADR 0069), whose
// parsing can be slow on crafted input too.
//
// Node loads this file itself, in the pool's thread: from source (Node strips the types) or as
// dist/server/highlight-worker.js (scripts/build-server.mjs). It imports packages only, as written.
import type { MessagePort } from 'node:worker_threads';
import hljs from 'highlight.js/lib/core';
import MarkdownIt from 'markdown-it';
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

/** One text to colour, as the pool sends it. */
export interface HighlightTask {
  text: string;
  language: string;
  /** Told when this thread takes the text: its time budget starts then. */
  started: MessagePort;
}

/** highlight.js's HTML for the text, or null for a language it does not know or a grammar that gives up on it. */
export default function highlight({ text, language, started }: HighlightTask): string | null {
  started.postMessage('started');
  if (!hljs.getLanguage(language)) return null;
  try {
    return hljs.highlight(text, { language, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
}

/** One Markdown text to render, as the pool sends it. */
export interface MarkdownTask {
  text: string;
  /** Told when this thread takes the text: its time budget starts then. */
  started: MessagePort;
}

/** Rendered HTML longer than this (characters) is not shown: the page shows the text instead. */
const MOST_RENDERED_CHARACTERS = 1024 * 1024;

/** Where a link (or an image, shown as a link) may lead: the web and e-mail, nothing that runs. */
const ALLOWED_LINK = /^(?:https?:|mailto:)/i;

const REL = 'nofollow noopener noreferrer';

/**
 * markdown-it as ADR 0069 sets it: raw HTML in the file is shown as text (`html: false`), links
 * only to http(s) and mailto (anything else stays the text it was written as), each with
 * rel="nofollow noopener noreferrer", and images drawn as links to them: the page loads nothing
 * from elsewhere, so its CSP holds and no third party learns of the visit.
 */
const markdownIt = new MarkdownIt('default', {
  html: false,
  linkify: false,
  typographer: false,
});
markdownIt.validateLink = (url) => ALLOWED_LINK.test(url);
const { escapeHtml } = markdownIt.utils;

/** How many links the renderer is inside (env.linkDepth): an image in a link is its text, never a link in a link. */
interface RenderEnv {
  linkDepth: number;
}
markdownIt.renderer.rules.link_open = (tokens, index, options, env: RenderEnv, self) => {
  env.linkDepth += 1;
  tokens[index].attrSet('rel', REL);
  return self.renderToken(tokens, index, options);
};
markdownIt.renderer.rules.link_close = (tokens, index, options, env: RenderEnv, self) => {
  env.linkDepth -= 1;
  return self.renderToken(tokens, index, options);
};
markdownIt.renderer.rules.image = (tokens, index, options, env: RenderEnv, self) => {
  const token = tokens[index];
  const src = token.attrGet('src') ?? '';
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const words = escapeHtml(`Image: ${alt || src}`);
  if (env.linkDepth > 0) return words;
  return `<a href="${escapeHtml(src)}" rel="${REL}" class="markdown-image">${words}</a>`;
};

/** The Markdown as HTML, or null when that HTML would be too long to show. */
export function renderMarkdown({ text, started }: MarkdownTask): string | null {
  started.postMessage('started');
  const env: RenderEnv = { linkDepth: 0 };
  const html = markdownIt.render(text, env);
  return html.length > MOST_RENDERED_CHARACTERS ? null : html;
}
