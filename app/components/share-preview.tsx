import { Fragment, type ReactNode } from 'react';
import { type CodeSegment, codeLines } from '~/utils/code-lines';
import { counted, formatBytes } from '~/utils/format';
import { MarkdownBody, type MarkdownPreviewData, MarkdownViews } from './markdown-preview';

/** How the share page shows a file: itself, its thumbnail (SVG, TIFF, HEIC), a player, or its text. */
export type SharePreviewKind = 'image' | 'thumbnail' | 'video' | 'audio' | 'pdf' | 'text' | 'none';

/** A text preview as the loader made it: highlight.js's HTML (or escaped text) and its language. */
interface TextPreview {
  html: string;
  language: string | null;
  truncated: boolean;
}

interface SharePreviewProps {
  kind: SharePreviewKind;
  name: string;
  /** `/f/<id>/preview`: the content for the page's own elements, never counted as a download (ADR 0066). */
  previewPath: string;
  thumbnailPath: string;
  text: TextPreview | null;
  /** A Markdown file: rendered or its source, and the links between the two (ADR 0069). */
  markdown: MarkdownPreviewData | null;
  /** The share page's own path (`/f/<id>`), which the Markdown views link to. */
  pagePath: string;
  /** The preview's cap, for the note under a cut text. */
  textLimit: number;
  /** A limited link shows visitors no preview: the file leaves it only as a download (ADR 0066). */
  previewOff: boolean;
  downloadsLeft: number | null;
}

/** The share page's preview: as large as the page allows, and the same without JavaScript. */
export function SharePreview({
  kind,
  name,
  previewPath,
  thumbnailPath,
  text,
  markdown,
  pagePath,
  textLimit,
  previewOff,
  downloadsLeft,
}: SharePreviewProps) {
  const truncatedNote = (
    <p className="muted">
      {`Preview truncated: only the first ${formatBytes(textLimit)} are shown. Download the file for the rest.`}
    </p>
  );
  return (
    <section className="preview" aria-label="Preview">
      {kind === 'image' ? <img src={previewPath} alt={name} /> : null}
      {/* Never the SVG itself (active content): its thumbnail, drawn to pixels on the server. */}
      {kind === 'thumbnail' ? <img src={thumbnailPath} alt={name} className="share-thumbnail" /> : null}
      {kind === 'video' ? (
        // biome-ignore lint/a11y/useMediaCaption: an uploaded clip comes with no captions to offer
        <video src={previewPath} controls preload="metadata">
          <a href={previewPath}>Open the video</a>
        </video>
      ) : null}
      {kind === 'audio' ? (
        // biome-ignore lint/a11y/useMediaCaption: an uploaded recording comes with no captions to offer
        <audio src={previewPath} controls preload="metadata" />
      ) : null}
      {kind === 'pdf' ? (
        <>
          {/* An iframe, not <object>: the pages' CSP has object-src 'none'. */}
          <iframe src={previewPath} title={name} className="share-pdf" />
          <p>
            <a href={previewPath} target="_blank" rel="noopener noreferrer">
              Open the PDF in a new tab
            </a>
          </p>
        </>
      ) : null}
      {kind === 'text' && markdown ? <MarkdownViews view={markdown.view} pagePath={pagePath} /> : null}
      {kind === 'text' && markdown?.html ? (
        <>
          <MarkdownBody html={markdown.html} />
          {markdown.truncated ? truncatedNote : null}
        </>
      ) : null}
      {kind === 'text' && markdown?.view === 'rendered' && !markdown.html && text ? (
        <p className="muted">Shown as text: this Markdown could not be rendered.</p>
      ) : null}
      {kind === 'text' && text ? (
        <>
          <CodeView text={text} />
          {text.truncated ? truncatedNote : null}
        </>
      ) : null}
      {kind === 'none' && previewOff ? (
        <p className="muted">
          {`No preview: this link allows ${counted(downloadsLeft ?? 0, 'more download', 'more downloads')}, and gives the file only as a download.`}
        </p>
      ) : null}
      {kind === 'none' && !previewOff ? (
        <p className="muted">No preview for this type of file. Download it to open it.</p>
      ) : null}
    </section>
  );
}

/**
 * Text with line numbers (drawn by the style sheet, so they are neither copied nor read out) and,
 * for source files, highlight.js's colours. Drawn from `codeLines`, never set as HTML.
 */
function CodeView({ text }: { text: TextPreview }) {
  const read = codeLines(text.html);
  if (!read) return null;
  const { lines, finalNewline } = read;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls (long lines, long files) is reached by the keyboard to scroll it
    <pre className="text-preview" data-digits={Math.min(String(lines.length).length, 6)} tabIndex={0}>
      <code className={text.language ? `hljs language-${text.language}` : undefined}>
        {lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the lines of a preview never move
          <Fragment key={index}>
            <span className="line">{segments(line)}</span>
            {index < lines.length - 1 || finalNewline ? '\n' : null}
          </Fragment>
        ))}
      </code>
    </pre>
  );
}

function segments(list: CodeSegment[]): ReactNode[] {
  return list.map((segment, index) =>
    typeof segment === 'string' ? (
      segment
    ) : (
      // biome-ignore lint/suspicious/noArrayIndexKey: the spans of a line never move
      <span key={index} className={segment.className}>
        {segments(segment.children)}
      </span>
    ),
  );
}
