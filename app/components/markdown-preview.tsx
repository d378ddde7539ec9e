/** A Markdown file's preview as the loader made it (ADR 0069). */
export interface MarkdownPreviewData {
  /** `rendered` (the page's address alone) or `source` (`?view=source`). */
  view: 'rendered' | 'source';
  /** markdown-it's HTML, checked on the server; null in the source view, or where it was not to be had. */
  html: string | null;
  truncated: boolean;
}

/**
 * "Rendered · Source": two links, so that the choice works without JavaScript, each a document
 * load (a protected file's grant cookie is sent to its page's address only, ADR 0031).
 */
export function MarkdownViews({ view, pagePath }: { view: MarkdownPreviewData['view']; pagePath: string }) {
  return (
    <nav className="markdown-views" aria-label="Show the Markdown">
      <a href={pagePath} aria-current={view === 'rendered' ? 'page' : undefined}>
        Rendered
      </a>
      <a href={`${pagePath}?view=source`} aria-current={view === 'source' ? 'page' : undefined}>
        Source
      </a>
    </nav>
  );
}

/**
 * The rendered Markdown: HTML made on the server by markdown-it with raw HTML shown as text,
 * links to the web and e-mail only, images as links, and checked against what markdown-it makes
 * (app/utils/markdown.server.ts), so it is put in as it is.
 */
export function MarkdownBody({ html }: { html: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it's HTML, checked on the server (ADR 0069)
  return <div className="markdown-body" dangerouslySetInnerHTML={{ __html: html }} />;
}
