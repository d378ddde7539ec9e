import { Link } from '@remix-run/react';
import type { FileListFilters } from '~/utils/file-list-query';
import { counted } from '~/utils/format';

/** Where the list stands: its search, whether this is a later page, and whether one follows. */
export interface ListPlace {
  filters: FileListFilters;
  olderPage: boolean;
  nextCursor: string | null;
}

const isFiltered = (filters: FileListFilters) => filters.q.trim() !== '' || filters.type !== '';
const isNewestFirst = (filters: FileListFilters) => filters.sort === '' || filters.sort === 'newest';

/** How many files this page shows, of how many the user has: said only where it is not all of them, newest first. */
export function PageSummary({ place, count, total }: { place: ListPlace; count: number; total: number }) {
  const { filters, olderPage, nextCursor } = place;
  const filtered = isFiltered(filters);
  if (count === 0) return null;
  if (filtered || !isNewestFirst(filters)) {
    return (
      <p className="muted page-summary">
        {`Showing ${counted(count, filtered ? 'matching file' : 'file')}${olderPage || nextCursor ? ' on this page' : ''} of your ${total}.`}
      </p>
    );
  }
  if (!olderPage && !nextCursor) return null;
  return (
    <p className="muted page-summary">
      {olderPage
        ? `Showing ${counted(count, 'older file')} of your ${total}.`
        : `Showing your ${count} newest files of ${total}.`}
    </p>
  );
}

/** What the list says when this page has no files: none match, none left this far in, or none yet. */
export function EmptyList({ place, allFilesPath }: { place: ListPlace; allFilesPath: string }) {
  if (isFiltered(place.filters)) {
    return (
      <p className="card empty">
        No files match. <Link to={allFilesPath}>Show all your files</Link>.
      </p>
    );
  }
  // A later page with nothing left on it (its files deleted meanwhile): the user has files.
  if (place.olderPage) return <p className="card empty">No older files.</p>;
  return (
    <p className="card empty">
      No files yet: <Link to="/upload">Upload your first file</Link>.
    </p>
  );
}

/**
 * Plain links, so paging works without JavaScript (ADR 0008, "Pages of files"); with it, the
 * page fetches the next one through tRPC (ADR 0075). `pathTo` gives a page's address.
 */
export function FilePager({ place, pathTo }: { place: ListPlace; pathTo: (cursor?: string) => string }) {
  const { olderPage, nextCursor, filters } = place;
  if (!olderPage && !nextCursor) return null;
  const newestFirst = isNewestFirst(filters);
  return (
    <nav className="pager actions" aria-label="Pages of your files">
      {olderPage ? <Link to={pathTo()}>{newestFirst ? 'Newest files' : 'First page'}</Link> : null}
      {nextCursor ? (
        <Link to={pathTo(nextCursor)} rel="next">
          {newestFirst ? 'Older files' : 'Next page'}
        </Link>
      ) : null}
    </nav>
  );
}
