// A collection's page, `/c/<id>` (ADR 0037, ADR 0038): its files as a tree of folders, each
// linking to its own page, and "Download all" (`/c/<id>/archive`, one ZIP). A password opens it
// through a form that works without JavaScript, as a file's page does.
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirectDocument } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { CollectionTree } from '~/components/collection-tree';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LinkLimits } from '~/components/link-limits';
import { ShareLink } from '~/components/share-link';
import { UnlockForm } from '~/components/unlock-form';
import { unlockRefusal } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { counted, formatBytes } from '~/utils/format';
import { sharePageHeaders } from '~/utils/share-page';
import { pageTitle, siteNameOf } from '~/utils/titles';

const COLLECTION_NOT_FOUND = 'This collection does not exist, or it was deleted.';

/** "3 files, 1.2 MB": the summary under the title and in a link preview. */
function summaryOf(fileCount: number, totalSize: number): string {
  return `${counted(fileCount, 'file')}, ${formatBytes(totalSize)}`;
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { ctx, services, http } = context;
  const id = params.id ?? '';
  const access = await services.collections.openCollectionShare(ctx, id, {
    grant: http.readCollectionGrant(request.headers.get('cookie') ?? undefined, id),
  });
  if (access.kind === 'missing') throw data({ message: COLLECTION_NOT_FOUND }, { status: 404 });
  if (access.kind === 'gone') throw data({ message: access.message }, { status: 410 });
  // Nothing about a protected collection before its password: no title, count or names.
  if (access.kind === 'locked') return data({ locked: true as const }, { status: 401 });
  const { collection } = access;
  return data(
    {
      locked: false as const,
      id: collection.id,
      title: collection.title,
      url: collection.url,
      fileCount: collection.fileCount,
      totalSize: collection.totalSize,
      hasPassword: collection.hasPassword,
      isOwner: access.isOwner,
      expiresAt: collection.expiresAt,
      downloadsLeft: collection.maxDownloads === null ? null : collection.maxDownloads - collection.downloads,
      files: collection.files.map(({ path, file }) => ({
        path,
        id: file.id,
        size: file.size,
        mimeType: file.mimeType,
        // Looking never uses up a download nor shows what a password keeps: a thumbnail only of an
        // image the file's own link shows inline, as many times as asked, to anyone or to this
        // visitor (the collection's password opens its files: ADR 0067).
        thumbnail:
          services.previewKind(file.mimeType) === 'image' &&
          file.maxDownloads === null &&
          (!file.hasPassword || access.filesUnlocked),
      })),
    },
    { headers: collection.hasPassword ? { 'Cache-Control': 'private, no-store' } : undefined },
  );
}

export const headers: HeadersFunction = sharePageHeaders;

/**
 * The visitor's password: on the right one, a proof in a cookie that opens the page, its archive
 * and its files' own links (ADR 0067).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const { ctx, services, http } = context;
  const id = params.id ?? '';
  const form = await readForm(request);
  if (form.get('intent') !== 'unlock') throw data({ message: 'Unknown form.' }, { status: 400 });
  try {
    const { grant, maxAgeSeconds } = await services.collections.unlockCollection(ctx, id, form.get('password'));
    const headers = new Headers();
    const cookie = request.headers.get('cookie') ?? undefined;
    for (const setCookie of http.collectionGrantCookies(ctx.config, id, grant, maxAgeSeconds, cookie))
      headers.append('Set-Cookie', setCookie);
    // A document load, as a file's page does after its password: the same with JavaScript or without.
    return redirectDocument(`/c/${id}`, { status: 303, headers });
  } catch (error) {
    const { status, message, headers } = unlockRefusal(context, error, COLLECTION_NOT_FOUND);
    return data({ unlockError: message }, { status, headers });
  }
}

// OpenGraph and Twitter cards, so a pasted link unfurls in chat apps.
export const meta: MetaFunction<typeof loader> = ({ data, error, matches }) => {
  if (error) return errorMeta(error, matches);
  if (!data) return [{ title: pageTitle(matches, 'Collection not found') }];
  if (data.locked || data.hasPassword) {
    // A protected collection's preview names nothing (it may unfurl in a chat for anyone).
    return [
      { title: pageTitle(matches, 'Password-protected collection') },
      { property: 'og:title', content: 'Password-protected collection' },
      { property: 'og:site_name', content: siteNameOf(matches) },
      { name: 'robots', content: 'noindex' },
    ];
  }
  const description = summaryOf(data.fileCount, data.totalSize);
  return [
    { title: pageTitle(matches, `${data.title}`) },
    { name: 'description', content: description },
    { property: 'og:title', content: data.title },
    { property: 'og:description', content: description },
    { property: 'og:url', content: data.url },
    { property: 'og:site_name', content: siteNameOf(matches) },
    { property: 'og:type', content: 'website' },
    { name: 'twitter:title', content: data.title },
    { name: 'twitter:card', content: 'summary' },
  ];
};

export default function CollectionView() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  if (data.locked)
    return <UnlockForm heading="Password-protected collection" error={actionData?.unlockError ?? null} />;
  return (
    <main>
      <h1 className="file-name">{data.title}</h1>
      <p className="collection-summary">{summaryOf(data.fileCount, data.totalSize)}</p>
      {data.isOwner ? null : <LinkLimits expiresAt={data.expiresAt} downloadsLeft={data.downloadsLeft} />}
      <p className="share-row">
        <span className="muted">Share link</span>
        <ShareLink url={data.url} label="Share link" />
      </p>
      <p className="actions">
        {/* A plain link: the archive is the server's (server/doors/raw/collection-archive.ts), not a page. */}
        <a className="button" href={`/c/${encodeURIComponent(data.id)}/archive`} download>
          Download all
        </a>
      </p>
      <section className="collection-files" aria-label="Files">
        {data.files.length === 0 ? (
          <p className="empty-state">
            <strong>No files in this collection.</strong>
            {data.isOwner ? ' Its files were deleted or have expired; the collection stays until you delete it.' : null}
          </p>
        ) : (
          <CollectionTree files={data.files} />
        )}
      </section>
    </main>
  );
}

// Its own boundary, so that an error thrown by the action (a collection gone meanwhile, an
// unknown form) still shows the signed-in header (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
