import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirectDocument } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useRef, useState } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LockIcon } from '~/components/icons';
import { ShareLink } from '~/components/share-link';
import { LocalTime } from '~/components/local-time';
import { ShareSettingsFields } from '~/components/share-settings-fields';
import { RenameFileForm } from '~/components/rename-file-form';
import { LinkLimits } from '~/components/link-limits';
import { SharePreview, type SharePreviewKind } from '~/components/share-preview';
import { UnlockForm } from '~/components/unlock-form';
import { pageErrorFrom, unlockRefusal } from '~/utils/errors.server';
import { type FieldLabels, inFormWords, sentShareSettings, SHARE_SETTINGS_LABELS } from '~/utils/form-errors';
import { readForm } from '~/utils/form.server';
import { formatBytes, formatDownloads, formatExpiry } from '~/utils/format';
import { requireUserPage } from '~/utils/session.server';
import { highlightedText } from '~/utils/highlight.server';
import { renderedMarkdown } from '~/utils/markdown.server';
import { fileTypeInWords, sourceLanguageOf } from '~/utils/share-file-type';
import { sharePageHeaders } from '~/utils/share-page';
import { FILE_NOT_FOUND } from '~/utils/share-messages';
// Images that have a thumbnail: a link preview can show it.
import { THUMBNAIL_IMAGE_TYPES } from '../../server/utilities/thumbnail-types';

/** The share page shows at most this much of a text file (the loader reads no more). */
const TEXT_PREVIEW_BYTES = 64 * 1024;

/** Images the page shows by their thumbnail: an SVG is active content, TIFF and HEIC show in few browsers. */
const THUMBNAIL_PREVIEW_TYPES = new Set(['image/svg+xml', 'image/tiff', 'image/heic', 'image/heif']);

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx, services, http } = context;
  const id = params.id ?? '';
  const cookie = request.headers.get('cookie') ?? undefined;
  const share = await services.shares.openShare(ctx, id, {
    grant: http.readShareGrant(cookie, id),
    // A file of a collection this browser unlocked opens with the collection's grant (ADR 0067).
    collectionGrants: http.readCollectionGrants(cookie),
  });
  // Like the raw link: a record whose content is gone is as missing as an unknown id.
  if (share.kind === 'missing') throw data({ message: FILE_NOT_FOUND }, { status: 404 });
  if (share.kind === 'gone') throw data({ message: share.message }, { status: 410 });
  // Nothing about a protected file before its password: no name, size or preview.
  if (share.kind === 'locked') return data({ locked: true as const, fileId: share.fileId }, { status: 401 });
  const { file } = share;
  // A look at the page is a view, never a download (ADR 0066): its preview counts nothing.
  if (request.method === 'GET') services.shares.countPageView(ctx, { fileId: file.id, isOwner: share.isOwner });
  const mimeType = file.mimeType.toLowerCase();
  const language = sourceLanguageOf(file.originalName, mimeType);
  let preview: SharePreviewKind = 'none';
  let byName = false;
  if (share.previewable) {
    const kind = services.previewKind(mimeType);
    if (THUMBNAIL_PREVIEW_TYPES.has(mimeType)) preview = 'thumbnail';
    else if (kind !== 'none') preview = kind;
    // Source the raw link only downloads (JavaScript, HTML, a `.ts` sent as video/mp2t) is shown as text.
    else if (language) {
      preview = 'text';
      byName = true;
    }
  }
  let textPreview = null;
  let binary = false;
  // Markdown shows rendered, its source a link away (?view=source), both without JavaScript (ADR 0069).
  const markdownView: 'rendered' | 'source' =
    new URL(request.url).searchParams.get('view') === 'source' ? 'source' : 'rendered';
  let markdownHtml: string | null = null;
  let textTruncated = false;
  if (preview === 'text') {
    const read = await services.shares.readTextPreview(share, TEXT_PREVIEW_BYTES);
    // Named like source but not text (an MPEG transport stream is a `.ts` too): no preview.
    if (read && byName && read.text.includes('\u0000')) {
      binary = true;
      preview = 'none';
    } else if (read) {
      const colour = (input: { text: string; language: string }) => services.textPreviews.colourText(ctx, input);
      const rendered = language === 'markdown' && markdownView === 'rendered';
      if (rendered) {
        const render = (input: { text: string }) => services.textPreviews.renderMarkdown(ctx, input);
        markdownHtml = await renderedMarkdown(read.text, render, file.storedName);
      }
      // The source, coloured; or plain text where the rendering was not to be had (past its budget).
      if (markdownHtml === null)
        textPreview = {
          ...(await highlightedText(read.text, rendered ? null : language, colour, file.storedName)),
          truncated: read.truncated,
        };
      textTruncated = read.truncated;
    }
  }
  const shareUrl = services.files.shareUrl(ctx, file.id);
  return data(
    {
      locked: false as const,
      file: {
        id: file.id,
        originalName: file.originalName,
        mimeType: file.mimeType,
        size: file.size,
        createdAt: file.createdAt,
        typeInWords: fileTypeInWords(file.originalName, mimeType, binary),
      },
      preview,
      // A limited link shows visitors no preview: the file leaves it only as a download (ADR 0066).
      previewOff: !share.previewable,
      textPreview,
      markdown:
        preview === 'text' && language === 'markdown'
          ? { view: markdownView, html: markdownHtml, truncated: textTruncated }
          : null,
      shareUrl,
      // Absolute for link previews (OpenGraph wants absolute URLs); the page itself uses a path,
      // so media still load (CSP 'self') when the site is reached by another name than BASE_URL.
      rawUrl: `${shareUrl}/raw`,
      rawPath: `/f/${encodeURIComponent(file.id)}/raw`,
      // What the page's own image, player and PDF load: not counted as a download (ADR 0066).
      previewPath: `/f/${encodeURIComponent(file.id)}/preview`,
      thumbnailPath: `/f/${encodeURIComponent(file.id)}/thumbnail`,
      // A link preview's picture is the thumbnail, which anyone may fetch only where the link
      // neither asks for a password nor counts downloads (server/doors/raw/thumbnail.ts).
      cardImage: THUMBNAIL_IMAGE_TYPES.has(mimeType) && !file.hasPassword && file.maxDownloads === null,
      // A protected file's link preview names nothing (it may unfurl in a chat for anyone).
      hasPassword: file.hasPassword,
      downloadsLeft: file.maxDownloads === null ? null : file.maxDownloads - file.downloads,
      // The recipient is told when the link stops working, as the owner is.
      expiresAt: file.expiresAt,
      isOwner: share.isOwner,
      settings: share.isOwner
        ? {
            current: {
              expiresAt: file.expiresAt,
              maxDownloads: file.maxDownloads,
              downloads: file.downloads,
              hasPassword: file.hasPassword,
            },
            views: file.views,
            expiry: services.shareSettings.expiryChoices(ctx.config),
          }
        : null,
      now: ctx.clock.now(),
    },
    {
      // Opened with its password: what it shows (a text preview is the content) stays out of every
      // cache, as the raw link's answer does (ADR 0014).
      headers: file.hasPassword ? { 'Cache-Control': 'private, no-store' } : undefined,
    },
  );
}

// A document render takes its headers from here: the action's Retry-After (429), the loader's Cache-Control.
export const headers: HeadersFunction = sharePageHeaders;

/** The rename form's one field, as the page labels it. */
const RENAME_LABELS: FieldLabels = { originalName: 'Name' };

/** What a form's answer carries when it is not the rename form's. */
const NOT_RENAMED = { renameError: null, renamed: false, sentName: null } as const;

/** The share page's forms: a visitor's password, and the owner's settings and name. */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const { ctx, services, http } = context;
  const id = params.id ?? '';
  const form = await readForm(request);
  const intent = form.get('intent');
  if (intent === 'unlock') {
    try {
      const { grant, maxAgeSeconds } = await services.shares.unlockShare(ctx, id, form.get('password'));
      // A document load, not the page's data fetch: the grant cookie's Path is /f/<id>, which a
      // browser does not send to /f/<id>.data (ADR 0031).
      return redirectDocument(`/f/${id}`, {
        status: 303,
        headers: { 'Set-Cookie': http.shareGrantCookie(ctx.config, id, grant, maxAgeSeconds) },
      });
    } catch (error) {
      const { status, message, headers } = unlockRefusal(context, error);
      return data(
        { unlockError: message, settingsError: null, settingsSaved: false, sent: null, ...NOT_RENAMED },
        { status, headers },
      );
    }
  }
  if (intent === 'settings') {
    requireUserPage(context, request);
    try {
      await services.files.updateShareSettings(ctx, id, settingsFromForm(form));
      return { unlockError: null, settingsError: null, settingsSaved: true, sent: null, ...NOT_RENAMED };
    } catch (error) {
      const { status, message } = pageErrorFrom(context, error);
      // In words for a person: the service's (and the API's) 403 says only "Forbidden".
      if (status === 403)
        throw data({ message: 'You can only change the link settings of your own files.' }, { status });
      if (status === 404 || status === 410) throw data({ message }, { status });
      // The form comes back with what was typed (a page without JavaScript is drawn anew), its password aside.
      const sent = sentShareSettings((name) => form.get(name));
      return data(
        {
          unlockError: null,
          settingsError: inFormWords(message, SHARE_SETTINGS_LABELS),
          settingsSaved: false,
          sent,
          ...NOT_RENAMED,
        },
        { status },
      );
    }
  }
  if (intent === 'rename') {
    requireUserPage(context, request);
    const name = form.get('originalName');
    try {
      await services.files.renameFile(ctx, id, name);
      return {
        unlockError: null,
        settingsError: null,
        settingsSaved: false,
        sent: null,
        ...NOT_RENAMED,
        renamed: true,
      };
    } catch (error) {
      const { status, message } = pageErrorFrom(context, error);
      if (status === 403) throw data({ message: 'You can only rename your own files.' }, { status });
      if (status === 404 || status === 410) throw data({ message }, { status });
      // The file keeps its name; the field comes back with what was typed, to be put right.
      return data(
        {
          unlockError: null,
          settingsError: null,
          settingsSaved: false,
          sent: null,
          renameError: inFormWords(message, RENAME_LABELS),
          renamed: false,
          sentName: typeof name === 'string' ? name : '',
        },
        { status },
      );
    }
  }
  throw data({ message: 'Unknown form.' }, { status: 400 });
}

/**
 * The owner's form as a settings change: a blank expiry or password keeps what is set, a blank
 * limit means no limit, and "Remove the password" clears it.
 */
function settingsFromForm(form: FormData): Record<string, unknown> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value.trim() : '';
  };
  const settings: Record<string, unknown> = { maxDownloads: text('maxDownloads') === '' ? null : text('maxDownloads') };
  if (text('expiresIn') !== '') settings.expiresIn = text('expiresIn');
  if (form.get('removePassword')) settings.password = null;
  else if (form.get('password')) settings.password = form.get('password');
  return settings;
}

// OpenGraph and Twitter cards, so a pasted link unfurls in chat apps.
export const meta: MetaFunction<typeof loader> = ({ data, error }) => {
  // An error page (404, 410, or a form's 400/403): its status is the title.
  if (error) return errorMeta(error);
  if (!data) return [{ title: 'File not found · File sharing' }];
  if (data.locked) {
    return [
      { title: 'Password-protected file · File sharing' },
      { name: 'description', content: 'A password-protected file.' },
      { property: 'og:title', content: 'Password-protected file' },
      { property: 'og:site_name', content: 'File sharing' },
      { name: 'twitter:card', content: 'summary' },
    ];
  }
  const { file, preview, shareUrl, rawUrl } = data;
  const description = `${formatBytes(file.size)} · ${file.typeInWords}`;
  if (data.hasPassword) {
    // Unlocked in this browser, but the page's tags may still travel (a shared snapshot, a bot with the cookie).
    return [{ title: 'Password-protected file · File sharing' }, { name: 'robots', content: 'noindex' }];
  }
  const tags = [
    { title: `${file.originalName} · File sharing` },
    { name: 'description', content: description },
    { property: 'og:title', content: file.originalName },
    { property: 'og:description', content: description },
    { property: 'og:url', content: shareUrl },
    { property: 'og:site_name', content: 'File sharing' },
    { property: 'og:type', content: preview === 'video' ? 'video.other' : 'website' },
    { name: 'twitter:title', content: file.originalName },
    { name: 'twitter:card', content: data.cardImage ? 'summary_large_image' : 'summary' },
  ];
  if (data.cardImage) {
    // The thumbnail, not the image: a small WebP whatever the upload (an SVG is never served as SVG).
    const thumbnailUrl = `${shareUrl}/thumbnail`;
    tags.push(
      { property: 'og:image', content: thumbnailUrl },
      { property: 'og:image:type', content: 'image/webp' },
      { property: 'og:image:alt', content: file.originalName },
      { name: 'twitter:image', content: thumbnailUrl },
    );
  }
  // A player fetches the raw link: never where that would use up one of the link's downloads.
  if (data.downloadsLeft === null) {
    if (preview === 'video') {
      tags.push({ property: 'og:video', content: rawUrl }, { property: 'og:video:type', content: file.mimeType });
    }
    if (preview === 'audio') tags.push({ property: 'og:audio', content: rawUrl });
  }
  return tags;
};

export default function FileView() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const settingsForm = useRef<HTMLFormElement>(null);
  // After a save with JavaScript the page stays: back to "keep" and a blank password, as a
  // reload shows it, so that the next save does not send the same change again.
  useEffect(() => {
    if (actionData?.settingsSaved) settingsForm.current?.reset();
  }, [actionData]);
  // With JavaScript a refused form stays as it was, its password typed in; without it the page
  // is drawn anew and the password (never sent back) must be typed again.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  if (data.locked) return <UnlockForm heading="Password-protected file" error={actionData?.unlockError ?? null} />;
  const {
    file,
    preview,
    previewOff,
    textPreview,
    markdown,
    shareUrl,
    rawPath,
    previewPath,
    thumbnailPath,
    settings,
    downloadsLeft,
    expiresAt,
    now,
  } = data;
  return (
    <main className="wide share-page">
      <div className="share-details">
        <h1 className="file-name">{file.originalName}</h1>
        <dl className="facts">
          <div>
            <dt>Size</dt>
            <dd>{formatBytes(file.size)}</dd>
          </div>
          <div>
            <dt>Type</dt>
            <dd>{file.typeInWords}</dd>
          </div>
          <div>
            <dt>Uploaded</dt>
            <dd>
              <LocalTime iso={file.createdAt} />
            </dd>
          </div>
          {settings ? (
            <>
              <div>
                <dt>Link</dt>
                <dd className="expiry">{formatExpiry(settings.current.expiresAt, now)}</dd>
              </div>
              <div>
                <dt>Views</dt>
                <dd className="views">{settings.views}</dd>
              </div>
              <div>
                <dt>Downloads</dt>
                <dd className="downloads">
                  {formatDownloads(settings.current.downloads, settings.current.maxDownloads)}
                </dd>
              </div>
              <div>
                <dt>Password</dt>
                <dd>
                  {settings.current.hasPassword ? (
                    <>
                      <LockIcon /> Yes
                    </>
                  ) : (
                    'No'
                  )}
                </dd>
              </div>
            </>
          ) : null}
        </dl>
        {/* What a recipient needs to know to fetch the file in time; the owner has the settings below. */}
        {settings ? null : <LinkLimits expiresAt={expiresAt} downloadsLeft={downloadsLeft} />}
        <p className="actions">
          <a className="button share-download" href={`${rawPath}?download=1`} download>
            {`Download (${formatBytes(file.size)})`}
          </a>
        </p>
        <p className="share-row">
          <span className="muted">Share link</span>
          <ShareLink url={shareUrl} label="Share link" />
        </p>
      </div>
      <div className="share-preview">
        <SharePreview
          kind={preview}
          name={file.originalName}
          previewPath={previewPath}
          thumbnailPath={thumbnailPath}
          text={textPreview}
          markdown={markdown}
          pagePath={`/f/${encodeURIComponent(file.id)}`}
          textLimit={TEXT_PREVIEW_BYTES}
          previewOff={previewOff}
          downloadsLeft={downloadsLeft}
        />
      </div>
      {settings ? (
        <div className="share-owner">
          <RenameFileForm
            currentName={file.originalName}
            error={actionData?.renameError ?? null}
            renamed={actionData?.renamed ?? false}
            sentName={actionData?.sentName ?? null}
          />
          <Form method="post" className="card stack owner-settings" aria-label="Link settings" ref={settingsForm}>
            <input type="hidden" name="intent" value="settings" />
            {actionData?.settingsError ? (
              <p className="alert" role="alert">
                {actionData.settingsError}
              </p>
            ) : null}
            {actionData?.settingsSaved ? (
              <p className="notice" role="status">
                Settings saved.
              </p>
            ) : null}
            {actionData?.sent?.passwordTyped && !hydrated ? (
              <p className="muted">Type the new password again: it is never sent back to the page.</p>
            ) : null}
            <ShareSettingsFields
              choices={settings.expiry.choices}
              defaultValue={settings.expiry.defaultValue}
              current={settings.current}
              expiryText={formatExpiry(settings.current.expiresAt, now)}
              sent={actionData?.sent ?? undefined}
            />
            <button type="submit">Save settings</button>
          </Form>
        </div>
      ) : null}
    </main>
  );
}

// Its own boundary, so that an error thrown by the action (a form for a file that is gone, not
// the user's, or an unknown form) still shows the signed-in header (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
