import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import {
  isRouteErrorResponse,
  Link,
  type ShouldRevalidateFunction,
  useLoaderData,
  useLocation,
  useRouteError,
} from '@remix-run/react';
import { type FormEvent, useEffect, useRef } from 'react';
import { CollectionList } from '~/components/collection-list';
import { useConfirmation } from '~/components/confirm-dialog';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { FileGallery } from '~/components/file-gallery';
import { EmptyList, FilePager, type ListPlace, PageSummary } from '~/components/files/file-pager';
import { FileSearchBar, ViewSwitch } from '~/components/files/file-search-bar';
import { FileTable } from '~/components/files/file-table';
import { type FocusAfterDelete, useDeleteInPlace, useListedPage } from '~/components/files/use-file-list';
import { StorageUsage } from '~/components/storage-usage';
import { UnfinishedUploads } from '~/components/unfinished-uploads';
import { deletedNotice, deleteQuestion } from '~/utils/delete-messages';
import { throwPageError } from '~/utils/errors.server';
import { FILTER_FIELDS, fileListQueryOf, onlyListPageDiffers, PAGE_GONE } from '~/utils/file-list-query';
import { readForm } from '~/utils/form.server';
import { requireUserPage } from '~/utils/session.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'My files') }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const params = new URL(request.url).searchParams;
  const query = fileListQueryOf(params);
  // The user's view (ADR 0046); `?view=` shows the other one for this address without storing
  // it (a link, a bookmark). A value that names no view is no choice: the stored one shows.
  const asked = params.get('view');
  const viewInAddress = services.fileList.isFileListView(asked) ? asked : null;
  const view = viewInAddress ?? (await services.fileList.myFileListView(ctx));
  let page: Awaited<ReturnType<typeof services.fileList.listMyFilesPage>>;
  try {
    page = await services.fileList.listMyFilesPage(ctx, { ...query.filters, cursor: query.cursor });
  } catch (error) {
    // A cursor cut short or edited is a page that is gone; a bad type or order is named as such.
    throwPageError(context, error, query.cursor === undefined ? {} : { 400: PAGE_GONE });
  }
  // The count of files comes with the space used (one query either way): no count of its own.
  const { usage, quota } = await services.storage.myStorageReport(ctx);
  const unfinished = await services.resumableUploads.listMyUnfinishedUploads(ctx);
  // A short list above the first page's files, not paged with them: read with any page, so that
  // going back to the first page in place (ADR 0075) has it to show.
  const collections = (await services.collections.listCollections(ctx)).map(
    ({ id, title, fileCount, totalSize, hasPassword }) => ({ id, title, fileCount, totalSize, hasPassword }),
  );
  return {
    files: page.files,
    nextCursor: page.nextCursor,
    query,
    view,
    viewInAddress: viewInAddress !== null,
    // Expiry is shown relative to this moment, the same on the server and in the browser.
    now: ctx.clock.now(),
    usage,
    quota,
    unfinished,
    collections,
    // Files guests sent through the user's requests since they last looked (ADR 0048).
    newRequestFiles: await services.fileRequests.countNewRequestFiles(ctx),
  };
}

/**
 * Another page or search of the list, with JavaScript: the address changes, and the page fetches
 * its files through tRPC (`files.list`) rather than running the whole loader again (ADR 0075).
 */
export const shouldRevalidate: ShouldRevalidateFunction = ({
  currentUrl,
  nextUrl,
  formMethod,
  defaultShouldRevalidate,
}) => {
  const navigation = formMethod === undefined || formMethod.toUpperCase() === 'GET';
  return navigation && onlyListPageDiffers(currentUrl, nextUrl) ? false : defaultShouldRevalidate;
};

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
  const loaded = useLoaderData<typeof loader>();
  const { view, viewInAddress, now, usage, quota, unfinished, collections, newRequestFiles } = loaded;
  const search = useLocation().search;
  const listed = useListedPage(loaded);
  const { filters, cursor } = listed.query;
  const place: ListPlace = { filters, olderPage: cursor !== undefined, nextCursor: listed.nextCursor };
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
  // Back from the delete confirmation (without JavaScript): it names the file it deleted.
  const deletion = useDeleteInPlace(listed.files, deletedNoticeIn(search));
  const files = deletion.shownFiles;
  const headingRef = useRef<HTMLHeadingElement>(null);
  useFocusAfterDelete(files, deletion.focusAfterDelete, deletion.setFocusAfterDelete, headingRef);

  // Another page of files (the links below, with JavaScript: no reload): what was said on the
  // page before goes, and focus starts at the heading, as on a page loaded afresh, rather than
  // staying on a link at the bottom of rows that are gone.
  // Another search, type or order is another list: the same goes for it.
  const shownSearch = useRef(search);
  const { setError, setNotice, setFocusAfterDelete } = deletion;
  useEffect(() => {
    if (search === shownSearch.current) return;
    shownSearch.current = search;
    setError(null);
    // A collection deleted from its dialog comes back here as the page without JavaScript does,
    // naming it in the address.
    setNotice(deletedNoticeIn(search));
    setFocusAfterDelete(null);
    headingRef.current?.focus();
  }, [search, setError, setNotice, setFocusAfterDelete]);

  const { ask, dialog } = useConfirmation();
  const onDelete = (event: FormEvent<HTMLFormElement>, id: string, name: string) => {
    event.preventDefault();
    void ask({ question: deleteQuestion(name), action: 'Delete' }).then((answer) => {
      if (answer) deletion.deleteFile(id, name);
    });
  };
  const error = deletion.error ?? listed.error;

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
      {/* On the first page only: the collections are a short list above the files. */}
      <CollectionList collections={cursor === undefined ? collections : []} />
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <p className="notice" role="status" hidden={!deletion.notice}>
        {deletion.notice}
      </p>
      <FileSearchBar key={search} filters={filters} view={view} viewInAddress={viewInAddress} />
      <ViewSwitch filters={filters} view={view} />
      <PageSummary place={place} count={files.length} total={usage.files} />
      {files.length === 0 ? (
        <EmptyList place={place} allFilesPath={viewInAddress ? `/files?view=${view}` : '/files'} />
      ) : view === 'gallery' ? (
        <FileGallery files={files} />
      ) : (
        <FileTable files={files} now={now} onDelete={onDelete} />
      )}
      <FilePager place={place} pathTo={listPath} />
      {dialog}
    </main>
  );
}

/** The notice of an address that names what was deleted (`?deleted=`). */
function deletedNoticeIn(search: string): string | null {
  const deleted = new URLSearchParams(search).get('deleted');
  return deleted ? deletedNotice(deleted) : null;
}

/**
 * Keyboard focus was on the Delete button of a row that goes away: once it has, focus moves to
 * the Delete button of the row that took its place (the next one, else the one before), or to
 * the heading when the list is empty, never to <body> (which starts the page over for a
 * keyboard or screen-reader user).
 */
function useFocusAfterDelete(
  files: ReadonlyArray<{ id: string }>,
  focusAfterDelete: FocusAfterDelete | null,
  setFocusAfterDelete: (focus: FocusAfterDelete | null) => void,
  headingRef: React.RefObject<HTMLHeadingElement>,
) {
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
  }, [files, focusAfterDelete, setFocusAfterDelete, headingRef]);
}

// A cursor that is not one of ours answers 400 in words, with the way back to the first page.
export function ErrorBoundary() {
  const error = useRouteError();
  const pageGone = isRouteErrorResponse(error) && error.status === 400;
  return <ErrorPage filesLink={pageGone ? 'Go to your newest files' : undefined} />;
}
