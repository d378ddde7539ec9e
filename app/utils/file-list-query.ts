// Which page of My files an address asks for: the loader reads it on the server, and the page in
// the browser reads it to fetch the same page in place through tRPC (ADR 0075). Pure.

/** The search fields a page of the list keeps (its address, the view switch's way back). */
export const FILTER_FIELDS = ['q', 'type', 'sort'] as const;

export type FileListFilters = Record<(typeof FILTER_FIELDS)[number], string>;

export interface FileListQuery {
  /** The search form's fields (a GET form: they are in the address, and each page's links keep them). */
  filters: FileListFilters;
  /** Where the page starts; none for the first page. */
  cursor: string | undefined;
}

/** A cursor that is not one of ours (cut short, edited, from an older version): the 400 page says this. */
export const PAGE_GONE = 'This page of your files does not exist any more.';

export function fileListQueryOf(params: URLSearchParams): FileListQuery {
  return {
    filters: { q: params.get('q') ?? '', type: params.get('type') ?? '', sort: params.get('sort') ?? '' },
    cursor: params.get('cursor') || undefined,
  };
}

export function sameFileListQuery(a: FileListQuery, b: FileListQuery): boolean {
  return a.cursor === b.cursor && FILTER_FIELDS.every((name) => a.filters[name] === b.filters[name]);
}

/** Parts of the address that only say which page of the list: the page fetches those in place. */
const LIST_PARAMS = new Set<string>([...FILTER_FIELDS, 'cursor', 'index']);

/** Whether two addresses of the list differ only in which page of it they show. */
export function onlyListPageDiffers(current: URL, next: URL): boolean {
  if (current.pathname !== next.pathname || current.search === next.search) return false;
  const others = (url: URL) =>
    [...url.searchParams]
      .filter(([name]) => !LIST_PARAMS.has(name))
      .map(([name, value]) => `${name}=${value}`)
      .sort()
      .join('&');
  return others(current) === others(next);
}
