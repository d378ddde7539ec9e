import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { ShareLink } from '~/components/share-link';
import { LocalTime } from '~/components/local-time';
import { formatBytes } from '~/utils/format';

/** The share page shows at most this much of a text file (the loader reads no more). */
const TEXT_PREVIEW_BYTES = 64 * 1024;

export async function loader({ params, context }: LoaderFunctionArgs) {
  const { ctx, services } = context;
  // Like the raw link: a record whose content is gone is as missing as an unknown id.
  const shared = await services.files.openSharedContent(ctx, params.id ?? '');
  if (!shared) throw json({ message: 'This file does not exist, or it was deleted.' }, { status: 404 });
  const { file } = shared;
  const preview = services.previewKind(file.mimeType);
  const textPreview = preview === 'text' ? await services.files.readTextPreview(ctx, file.id, TEXT_PREVIEW_BYTES) : null;
  const shareUrl = services.files.shareUrl(ctx, file.id);
  return json({
    file: { id: file.id, originalName: file.originalName, mimeType: file.mimeType, size: file.size, createdAt: file.createdAt },
    preview,
    textPreview,
    shareUrl,
    // Absolute for link previews (OpenGraph wants absolute URLs); the page itself uses a path,
    // so media still load (CSP 'self') when the site is reached by another name than BASE_URL.
    rawUrl: `${shareUrl}/raw`,
    rawPath: `/f/${encodeURIComponent(file.id)}/raw`,
    isOwner: ctx.user?.id === file.userId,
  });
}

// OpenGraph and Twitter cards, so a pasted link unfurls in chat apps.
export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: 'File not found · File sharing' }];
  const { file, preview, shareUrl, rawUrl } = data;
  const description = `${formatBytes(file.size)} · ${file.mimeType}`;
  const tags = [
    { title: `${file.originalName} · File sharing` },
    { name: 'description', content: description },
    { property: 'og:title', content: file.originalName },
    { property: 'og:description', content: description },
    { property: 'og:url', content: shareUrl },
    { property: 'og:site_name', content: 'File sharing' },
    { property: 'og:type', content: preview === 'video' ? 'video.other' : 'website' },
    { name: 'twitter:title', content: file.originalName },
    { name: 'twitter:card', content: preview === 'image' ? 'summary_large_image' : 'summary' },
  ];
  if (preview === 'image') {
    tags.push({ property: 'og:image', content: rawUrl }, { name: 'twitter:image', content: rawUrl });
  }
  if (preview === 'video') {
    tags.push({ property: 'og:video', content: rawUrl }, { property: 'og:video:type', content: file.mimeType });
  }
  if (preview === 'audio') tags.push({ property: 'og:audio', content: rawUrl });
  return tags;
};

export default function FileView() {
  const { file, preview, textPreview, shareUrl, rawPath } = useLoaderData<typeof loader>();
  return (
    <main>
      <h1 className="file-name">{file.originalName}</h1>
      <dl className="facts">
        <div>
          <dt>Size</dt>
          <dd>{formatBytes(file.size)}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{file.mimeType}</dd>
        </div>
        <div>
          <dt>Uploaded</dt>
          <dd>
            <LocalTime iso={file.createdAt} />
          </dd>
        </div>
      </dl>
      <p className="share-row">
        <span className="muted">Share link</span>
        <ShareLink url={shareUrl} label="Share link" />
      </p>
      <p className="actions">
        <a className="button" href={`${rawPath}?download=1`} download>
          Download
        </a>
      </p>
      <section className="preview" aria-label="Preview">
        {preview === 'image' ? <img src={rawPath} alt={file.originalName} /> : null}
        {preview === 'video' ? (
          // Full width (letterboxed by the browser): a small clip keeps usable controls.
          <video src={rawPath} controls preload="metadata" style={{ width: '100%', background: '#000' }}>
            <a href={rawPath}>Open the video</a>
          </video>
        ) : null}
        {preview === 'audio' ? <audio src={rawPath} controls preload="metadata" /> : null}
        {preview === 'pdf' ? (
          <>
            {/* An iframe, not <object>: the pages' CSP has object-src 'none'. */}
            <iframe
              src={rawPath}
              title={`PDF preview of ${file.originalName}`}
              style={{ width: '100%', height: '75vh', border: '1px solid var(--border)', borderRadius: 'var(--radius)' }}
            />
            <p>
              <a href={rawPath} target="_blank" rel="noopener noreferrer">
                Open the PDF in a new tab
              </a>
            </p>
          </>
        ) : null}
        {preview === 'text' && textPreview ? (
          <>
            <pre className="text-preview">{textPreview.text}</pre>
            {textPreview.truncated ? (
              <p className="muted">
                {`Preview truncated: only the first ${formatBytes(TEXT_PREVIEW_BYTES)} are shown. Download the file for the rest.`}
              </p>
            ) : null}
          </>
        ) : null}
        {preview === 'none' ? <p className="muted">No preview for this type of file. Download it to open it.</p> : null}
      </section>
    </main>
  );
}
