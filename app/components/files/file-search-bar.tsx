import { Form } from '@remix-run/react';
import { FILTER_FIELDS, type FileListFilters } from '~/utils/file-list-query';

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

export type FileListView = (typeof VIEW_CHOICES)[number][0];

/**
 * A GET form: it works without JavaScript, and the address keeps the search for each page. With
 * JavaScript it is a navigation within the page, whose list comes through tRPC (ADR 0075).
 * Keyed by the address by its caller: another page shows its own search.
 */
export function FileSearchBar({
  filters,
  view,
  viewInAddress,
}: {
  filters: FileListFilters;
  view: FileListView;
  viewInAddress: boolean;
}) {
  return (
    <Form method="get" action="/files" className="file-filters actions" role="search" aria-label="Search your files">
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
  );
}

/** A POST form: the choice is kept for the next visits; without JavaScript it works the same. */
export function ViewSwitch({ filters, view }: { filters: FileListFilters; view: FileListView }) {
  return (
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
  );
}
