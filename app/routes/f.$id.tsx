import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirectDocument } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { useState } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { FileDetails } from '~/components/file-page/file-details';
import { LinkSettingsForm } from '~/components/file-page/link-settings-form';
import { RenameFileForm } from '~/components/rename-file-form';
import { SharePreview, type SharePreviewKind } from '~/components/share-preview';
import { UnlockForm } from '~/components/unlock-form';
import { pageErrorFrom, unlockRefusal } from '~/utils/errors.server';
import { inFormWords, sentShareSettings, SHARE_SETTINGS_LABELS } from '~/utils/form-errors';
import { RENAME_LABELS, RENAME_NOT_YOURS, SETTINGS_NOT_YOURS, settingsFromForm } from '~/utils/owner-forms';
import { readForm } from '~/utils/form.server';
import { formatBytes } from '~/utils/format';
import { requireUserPage } from '~/utils/session.server';
import { highlightedText } from '~/utils/highlight.server';
import { renderedMarkdown } from '~/utils/markdown.server';
import { fileTypeInWords, sourceLanguageOf } from '~/utils/share-file-type';
import { sharePageHeaders } from '~/utils/share-page';
import { FILE_NOT_FOUND } from '~/utils/share-messages';
// Images that have a thumbnail: a link preview can show it.
import { THUMBNAIL_IMAGE_TYPES } from '../../server/utilities/thumbnail-types';
import { pageTitle, siteNameOf } from '~/utils/titles';

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
      if (status === 403) throw data({ message: SETTINGS_NOT_YOURS }, { status });
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
      if (status === 403) throw data({ message: RENAME_NOT_YOURS }, { status });
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

// OpenGraph and Twitter cards, so a pasted link unfurls in chat apps.
export const meta: MetaFunction<typeof loader> = ({ data, error, matches }) => {
  // An error page (404, 410, or a form's 400/403): its status is the title.
  if (error) return errorMeta(error, matches);
  if (!data) return [{ title: pageTitle(matches, 'File not found') }];
  if (data.locked) {
    return [
      { title: pageTitle(matches, 'Password-protected file') },
      { name: 'description', content: 'A password-protected file.' },
      { property: 'og:title', content: 'Password-protected file' },
      { property: 'og:site_name', content: siteNameOf(matches) },
      { name: 'twitter:card', content: 'summary' },
    ];
  }
  const { file, preview, shareUrl, rawUrl } = data;
  const description = `${formatBytes(file.size)} · ${file.typeInWords}`;
  if (data.hasPassword) {
    // Unlocked in this browser, but the page's tags may still travel (a shared snapshot, a bot with the cookie).
    return [{ title: pageTitle(matches, 'Password-protected file') }, { name: 'robots', content: 'noindex' }];
  }
  const tags = [
    { title: pageTitle(matches, `${file.originalName}`) },
    { name: 'description', content: description },
    { property: 'og:title', content: file.originalName },
    { property: 'og:description', content: description },
    { property: 'og:url', content: shareUrl },
    { property: 'og:site_name', content: siteNameOf(matches) },
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
  // A new name shows at once while its rename is on its way (ADR 0075); each load shows the file's own.
  const [pending, setPending] = useState<{ name: string | null; over: typeof data } | null>(null);
  const pendingName = pending?.over === data ? pending.name : null;
  const setPendingName = (name: string | null) => setPending({ name, over: data });
  if (data.locked) return <UnlockForm heading="Password-protected file" error={actionData?.unlockError ?? null} />;
  const { file, settings, now } = data;
  return (
    <main className="wide share-page">
      <FileDetails
        file={file}
        name={pendingName ?? file.originalName}
        owner={settings}
        expiresAt={data.expiresAt}
        downloadsLeft={data.downloadsLeft}
        rawPath={data.rawPath}
        shareUrl={data.shareUrl}
        now={now}
      />
      <div className="share-preview">
        <SharePreview
          kind={data.preview}
          name={file.originalName}
          previewPath={data.previewPath}
          thumbnailPath={data.thumbnailPath}
          text={data.textPreview}
          markdown={data.markdown}
          pagePath={`/f/${encodeURIComponent(file.id)}`}
          textLimit={TEXT_PREVIEW_BYTES}
          previewOff={data.previewOff}
          downloadsLeft={data.downloadsLeft}
        />
      </div>
      {settings ? (
        <div className="share-owner">
          <RenameFileForm
            fileId={file.id}
            currentName={pendingName ?? file.originalName}
            error={actionData?.renameError ?? null}
            renamed={actionData?.renamed ?? false}
            sentName={actionData?.sentName ?? null}
            onNameShown={setPendingName}
          />
          <LinkSettingsForm fileId={file.id} settings={settings} now={now} answer={actionData} />
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
