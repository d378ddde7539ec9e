import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import {
  Form,
  isRouteErrorResponse,
  Link,
  useLoaderData,
  useLocation,
  useRevalidator,
  useRouteError,
} from '@remix-run/react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { CollectionList } from '~/components/collection-list';
import { useConfirmation } from '~/components/confirm-dialog';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { FileGallery, FilePicture } from '~/components/file-gallery';
import { FileName } from '~/components/file-name';
import { PasswordLock } from '~/components/icons';
import { LocalTime } from '~/components/local-time';
import { MediaType } from '~/components/media-type';
import { ReceivedFrom } from '~/components/received-from';
import { ShareLink } from '~/components/share-link';
import { StorageUsage } from '~/components/storage-usage';
import { UnfinishedUploads } from '~/components/unfinished-uploads';
import { alreadyDeletedNotice, deletedNotice, deleteQuestion } from '~/utils/delete-messages';
import { throwPageError } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { counted, downloadsNoun, formatBytes, formatDownloads, formatExpiry } from '~/utils/format';
import { requireUserPage } from '~/utils/session.server';
import { trpc } from '~/utils/trpc';

export const meta: MetaFunction = ({ error }) => (error ? errorMeta(error) : [{ title: 'My files · File sharing' }]);

/**
 * Files per page (ADR 0008, "Pages of files"): a page of 100 rows is about 120 KB of HTML and
 * page data, where a ShareX user's whole list was megabytes.
 */
const FILES_PER_PAGE = 100;

/** A cursor that is not one of ours (cut short, edited, from an older version): the 400 page says this. */
const PAGE_GONE = 'This page of your files does not exist any more.';

/** The kinds of file the list can be narrowed to (the API's `type`), as the select names them. */
const TYPE_CHOICES: ReadonlyArray<[value: string, label: string]> = [
  ['', 'All types'],
  ['images', 'Images'],
  ['video', 'Videos'],
  ['audio', 'Audio'],
  ['documents', 'Documents'],
  ['code', 'Code'],
  ['other', 'Other'],
];

/** The orders of the list (the API's `sort`). */
const SORT_CHOICES: ReadonlyArray<[value: string, label: string]> = [
  ['newest', 'Newest first'],
  ['oldest', 'Oldest first'],
  ['name', 'Name (A to Z)'],
  ['size', 'Largest first'],
];

/** The views of the list (ADR 0046), as the switch names them. */
const VIEW_CHOICES: ReadonlyArray<[value: 'table' | 'gallery', label: string]> = [
  ['table', 'Table'],
  ['gallery', 'Gallery'],
];

/** The search fields a page of the list keeps (its address, the view switch's way back). */
const FILTER_FIELDS = ['q', 'type', 'sort'] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  // The API's keyset pages (`listFilesPage`, docs/api.md): each costs the same however far in.
  // The cursor only ever moves within the caller's own files: the service's query is theirs.
  const params = new URL(request.url).searchParams;
  const cursor = params.get('cursor') || undefined;
  // The search form's fields (a GET form: they are in the address, and each page's links keep them).
  const filters = { q: params.get('q') ?? '', type: params.get('type') ?? '', sort: params.get('sort') ?? '' };
  // The user's view (ADR 0046); `?view=` shows the other one for this address without storing
  // it (a link, a bookmark). A value that names no view is no choice: the stored one shows.
  const asked = params.get('view');
  const viewInAddress = services.fileList.isFileListView(asked) ? asked : null;
  const view = viewInAddress ?? (await services.fileList.myFileListView(ctx));
  let page: Awaited<ReturnType<typeof services.files.listFilesPage>>;
  try {
    page = await services.files.listFilesPage(ctx, { limit: FILES_PER_PAGE, cursor, ...filters });
  } catch (error) {
    // A cursor cut short or edited is a page that is gone; a bad type or order is named as such.
    throwPageError(context, error, cursor === undefined ? {} : { 400: PAGE_GONE });
  }
  // The count of files comes with the space used (one query either way): no count of its own.
  const { usage, quota } = await services.storage.myStorageReport(ctx);
  const unfinished = await services.resumableUploads.listMyUnfinishedUploads(ctx);
  // On the first page only: the collections are a short list above the files, not paged with them.
  const collections =
    cursor === undefined
      ? (await services.collections.listCollections(ctx)).map(({ id, title, fileCount, totalSize, hasPassword }) => ({
          id,
          title,
          fileCount,
          totalSize,
          hasPassword,
        }))
      : [];
  const now = ctx.clock.now();
  // The owner sees the thumbnail of any of their images, password or download limit or not
  // (ADR 0041); a link that has expired or used up its downloads shows none to anybody (410).
  const gone = (file: (typeof page.files)[number]) =>
    (file.expiresAt !== null && Date.parse(file.expiresAt) <= now) ||
    (file.maxDownloads !== null && file.downloads >= file.maxDownloads);
  return {
    files: page.files.map((file) => ({
      ...file,
      url: services.files.shareUrl(ctx, file.id),
      thumbnail: services.fileList.thumbnailExpected(file) && !gone(file),
    })),
    nextCursor: page.nextCursor,
    olderPage: cursor !== undefined,
    filters,
    view,
    viewInAddress: viewInAddress !== null,
    // Expiry is shown relative to this moment, the same on the server and in the browser.
    now,
    usage,
    quota,
    unfinished,
    collections,
    // Files guests sent through the user's requests since they last looked (ADR 0048).
    newRequestFiles: await services.fileRequests.countNewRequestFiles(ctx),
  };
}

/**
 * The view switch (ADR 0046): stores the user's choice of view, then back to the list with the
 * same search, type and order (a first page: the other view of the same files).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  const form = await readForm(request);
  try {
    await context.services.fileList.setMyPreferences(context.ctx, { fileListView: form.get('view') });
  } catch (error) {
    throwPageError(context, error, { 400: 'Choose the table or the gallery.' });
  }
  const back = new URLSearchParams();
  for (const name of FILTER_FIELDS) {
    const value = form.get(name);
    if (typeof value === 'string' && value !== '') back.set(name, value);
  }
  const query = back.toString();
  return redirect(query === '' ? '/files' : `/files?${query}`, 303);
}

export default function Files() {
  const { files, nextCursor, olderPage, filters, view, viewInAddress, now, usage, quota, unfinished, collections } =
    useLoaderData<typeof loader>();
  const { newRequestFiles } = useLoaderData<typeof loader>();
  const filtered = filters.q.trim() !== '' || filters.type !== '';
  const newestFirst = filters.sort === '' || filters.sort === 'newest';
  /** A page of this list: the same search, type and order, and the cursor when there is one. */
  const listPath = (cursor?: string) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filters)) if (value !== '') query.set(name, value);
    // A view from the address goes on with the pages; a stored one needs no saying.
    if (viewInAddress) query.set('view', view);
    if (cursor) query.set('cursor', cursor);
    const text = query.toString();
    return text === '' ? '/files' : `/files?${text}`;
  };
  const [error, setError] = useState<string | null>(null);
  // Back from the delete confirmation (without JavaScript): it names the file it deleted.
  const deletedName = new URLSearchParams(useLocation().search).get('deleted');
  const [notice, setNotice] = useState<string | null>(deletedName ? deletedNotice(deletedName) : null);
  // With JavaScript a delete needs no reload: success or not, the loader runs again for this
  // same page (its cursor kept), so the row goes, a file deleted meanwhile (another tab, the
  // API) goes too, the next older file moves up into a full page, and the space used follows.
  // (The list is the loader's page, not the tRPC list of every file, which is megabytes for a
  // ShareX user.)
  const revalidator = useRevalidator();
  const remove = trpc.files.delete.useMutation({
    onSettled: () => revalidator.revalidate(),
  });

  // Keyboard focus was on the Delete button of a row that goes away: once it has, focus moves to
  // the Delete button of the row that took its place (the next one, else the one before), or to
  // the heading when the list is empty, never to <body> (which starts the page over for a
  // keyboard or screen-reader user).
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [focusAfterDelete, setFocusAfterDelete] = useState<{ deleted: string; next: string | null } | null>(null);
  useEffect(() => {
    if (!focusAfterDelete || files.some((file) => file.id === focusAfterDelete.deleted)) return;
    setFocusAfterDelete(null);
    // Only when focus was lost with the row: the user may have moved on meanwhile.
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const rows = Array.from(document.querySelectorAll<HTMLTableRowElement>('tr[data-file-id]'));
    // The chosen neighbour may have gone too (deleted elsewhere): then the heading.
    const next = rows
      .find((row) => row.dataset.fileId === focusAfterDelete.next)
      ?.querySelector<HTMLButtonElement>('form button');
    (next ?? headingRef.current)?.focus();
  }, [files, focusAfterDelete]);

  // Another page of files (the links below, with JavaScript: no reload): what was said on the
  // page before goes, and focus starts at the heading, as on a page loaded afresh, rather than
  // staying on a link at the bottom of rows that are gone.
  // Another search, type or order is another list: the same goes for it.
  const cursorParam = useLocation().search;
  const shownCursor = useRef(cursorParam);
  useEffect(() => {
    if (cursorParam === shownCursor.current) return;
    shownCursor.current = cursorParam;
    setError(null);
    // A collection deleted from its dialog comes back here as the page without JavaScript does,
    // naming it in the address.
    const deleted = new URLSearchParams(cursorParam).get('deleted');
    setNotice(deleted ? deletedNotice(deleted) : null);
    setFocusAfterDelete(null);
    headingRef.current?.focus();
  }, [cursorParam]);

  const { ask, dialog } = useConfirmation();
  const onDelete = (event: FormEvent<HTMLFormElement>, id: string, name: string) => {
    event.preventDefault();
    void ask({ question: deleteQuestion(name), action: 'Delete' }).then((answer) => {
      if (answer) deleteFile(id, name);
    });
  };

  const deleteFile = (id: string, name: string) => {
    setError(null);
    setNotice(null);
    const index = files.findIndex((file) => file.id === id);
    const neighbour = files[index + 1] ?? files[index - 1] ?? null;
    remove.mutate(
      { id },
      {
        onSuccess: () => {
          setNotice(deletedNotice(name));
          setFocusAfterDelete({ deleted: id, next: neighbour?.id ?? null });
        },
        onError: (e) => {
          const gone = e.data?.code === 'NOT_FOUND';
          setError(gone ? alreadyDeletedNotice(name) : e.message);
          // Deleted elsewhere: its row goes too. Otherwise it stays, and so does the focus.
          if (gone) setFocusAfterDelete({ deleted: id, next: neighbour?.id ?? null });
        },
      },
    );
  };

  return (
    <main className="wide">
      <div className="heading-row">
        <h1 ref={headingRef} tabIndex={-1}>
          My files
        </h1>
        <Link to="/upload" className="button">
          Upload a file
        </Link>
        <Link to="/requests" className="button secondary">
          File requests{newRequestFiles > 0 ? ` · ${newRequestFiles} new` : ''}
        </Link>
      </div>
      <StorageUsage {...usage} quota={quota} />
      <UnfinishedUploads uploads={unfinished} />
      <CollectionList collections={collections} />
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <p className="notice" role="status" hidden={!notice}>
        {notice}
      </p>
      {/* A GET form: it works without JavaScript, and the address keeps the search for each page. */}
      <Form
        method="get"
        action="/files"
        className="file-filters actions"
        role="search"
        aria-label="Search your files"
        key={cursorParam}
      >
        <label>
          Search
          <input type="search" name="q" defaultValue={filters.q} maxLength={255} />
        </label>
        <label>
          Type
          <select name="type" defaultValue={filters.type}>
            {TYPE_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort
          <select name="sort" defaultValue={filters.sort || 'newest'}>
            {SORT_CHOICES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {viewInAddress ? <input type="hidden" name="view" value={view} /> : null}
        <button type="submit">Show</button>
      </Form>
      {/* A POST form: the choice is kept for the next visits; without JavaScript it works the same. */}
      <Form method="post" action="/files?index" className="view-switch" aria-label="View of your files">
        {FILTER_FIELDS.map((name) =>
          filters[name] === '' ? null : <input key={name} type="hidden" name={name} value={filters[name]} />,
        )}
        <span className="view-switch-label">View</span>
        {VIEW_CHOICES.map(([value, label]) => (
          <button key={value} type="submit" name="view" value={value} aria-pressed={view === value}>
            {label}
          </button>
        ))}
      </Form>
      {files.length > 0 && (filtered || !newestFirst) ? (
        <p className="muted page-summary">
          {`Showing ${counted(files.length, filtered ? 'matching file' : 'file')}${olderPage || nextCursor ? ' on this page' : ''} of your ${usage.files}.`}
        </p>
      ) : files.length > 0 && (olderPage || nextCursor) ? (
        <p className="muted page-summary">
          {olderPage
            ? `Showing ${counted(files.length, 'older file')} of your ${usage.files}.`
            : `Showing your ${files.length} newest files of ${usage.files}.`}
        </p>
      ) : null}
      {files.length === 0 && filtered ? (
        <p className="card empty">
          No files match. <Link to={viewInAddress ? `/files?view=${view}` : '/files'}>Show all your files</Link>.
        </p>
      ) : files.length === 0 && olderPage ? (
        // A later page with nothing left on it (its files deleted meanwhile): the user has files.
        <p className="card empty">No older files.</p>
      ) : files.length === 0 ? (
        <p className="card empty">
          No files yet: <Link to="/upload">Upload your first file</Link>.
        </p>
      ) : view === 'gallery' ? (
        <FileGallery files={files} />
      ) : (
        <div className="table-wrap">
          <table className="files">
            <thead>
              <tr>
                <th scope="col" className="thumb">
                  <span className="visually-hidden">Picture</span>
                </th>
                <th scope="col">Name and share link</th>
                <th scope="col">Size</th>
                <th scope="col">Type</th>
                <th scope="col">Uploaded</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  {/* On two lines: the column is no wider than its counts. */}
                  Views ·<br />
                  downloads
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.id} data-file-id={file.id}>
                  <td className="thumb">
                    <FilePicture file={file} pixels={40} />
                  </td>
                  <td className="name">
                    <Link to={`/f/${file.id}`}>
                      <FileName name={file.originalName} />
                    </Link>
                    {file.hasPassword ? <PasswordLock /> : null}
                    <ShareLink url={file.url} label={`Share link for ${file.originalName}`} />
                    <ReceivedFrom file={file} />
                  </td>
                  <td className="size">{formatBytes(file.size)}</td>
                  <td className="type">
                    <MediaType type={file.mimeType} />
                  </td>
                  <td className="date">
                    <LocalTime iso={file.createdAt} />
                  </td>
                  <td className="expires">{formatExpiry(file.expiresAt, now)}</td>
                  <td className="downloads">
                    {/* Views of its page apart from downloads (ADR 0066). The nouns are shown only in
                        the narrow layout, where no column header says what the numbers count. */}
                    {file.views}
                    <span className="count-noun">{file.views === 1 ? ' view' : ' views'}</span>
                    {' · '}
                    {formatDownloads(file.downloads, file.maxDownloads)}
                    <span className="count-noun">{` ${downloadsNoun(file.downloads, file.maxDownloads)}`}</span>
                  </td>
                  <td>
                    {/* Without JavaScript it opens the confirmation page, which comes back here
                        (ADR 0008); with it, the page's own dialog asks and the delete is done in place. */}
                    <form
                      method="get"
                      action={`/files/${file.id}/delete`}
                      onSubmit={(e) => onDelete(e, file.id, file.originalName)}
                    >
                      <button type="submit" className="danger small" aria-label={`Delete ${file.originalName}`}>
                        Delete
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {olderPage || nextCursor ? (
        // Plain links, so paging works without JavaScript (ADR 0008, "Pages of files").
        <nav className="pager actions" aria-label="Pages of your files">
          {olderPage ? <Link to={listPath()}>{newestFirst ? 'Newest files' : 'First page'}</Link> : null}
          {nextCursor ? (
            <Link to={listPath(nextCursor)} rel="next">
              {newestFirst ? 'Older files' : 'Next page'}
            </Link>
          ) : null}
        </nav>
      ) : null}
      {dialog}
    </main>
  );
}

// A cursor that is not one of ours answers 400 in words, with the way back to the first page.
export function ErrorBoundary() {
  const error = useRouteError();
  const pageGone = isRouteErrorResponse(error) && error.status === 400;
  return <ErrorPage filesLink={pageGone ? 'Go to your newest files' : undefined} />;
}
