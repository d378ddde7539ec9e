import { useLocation, useRevalidator } from '@remix-run/react';
import { keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import type { ListedRow } from '~/components/files/file-table';
import { alreadyDeletedNotice, deletedNotice } from '~/utils/delete-messages';
import { type FileListQuery, fileListQueryOf, PAGE_GONE, sameFileListQuery } from '~/utils/file-list-query';
import { trpc } from '~/utils/trpc';

/** A page of files as the loader read it: the page the address asked for when it ran. */
export interface LoadedPage {
  files: readonly ListedRow[];
  nextCursor: string | null;
  query: FileListQuery;
}

/**
 * The page of files to show (ADR 0075). The loader draws the page the address asks for; another
 * page or search reached with JavaScript changes the address without running the loader again
 * (the route's `shouldRevalidate`) and comes through tRPC's `files.list`, the rows before it
 * staying until it arrives. A delete or other change runs the loader again for the address shown.
 */
export function useListedPage(loaded: LoadedPage) {
  const query = fileListQueryOf(new URLSearchParams(useLocation().search));
  const fromLoader = sameFileListQuery(query, loaded.query);
  const fetched = trpc.files.list.useQuery(
    { ...query.filters, cursor: query.cursor },
    { enabled: !fromLoader, placeholderData: keepPreviousData, retry: false },
  );
  const page = fromLoader ? loaded : (fetched.data ?? loaded);
  // A cursor that is not one of ours says what the loader's 400 page says.
  const error =
    fromLoader || !fetched.error
      ? null
      : fetched.error.data?.code === 'BAD_REQUEST' && query.cursor
        ? PAGE_GONE
        : fetched.error.message;
  return { query, files: page.files, nextCursor: page.nextCursor, error };
}

/** Where focus goes once a deleted file's row is gone: the row that took its place. */
export interface FocusAfterDelete {
  deleted: string;
  next: string | null;
}

/**
 * A delete in place (tRPC `files.delete`): the row goes at once and comes back with an error if
 * the delete fails. Success or not, the loader runs again for the page shown (its cursor kept), so
 * a file deleted meanwhile (another tab, the API) goes too, the next file moves up into a full
 * page, and the space used follows.
 */
export function useDeleteInPlace(files: readonly ListedRow[], initialNotice: string | null) {
  const revalidator = useRevalidator();
  const utils = trpc.useUtils();
  const remove = trpc.files.delete.useMutation({
    onSettled: () => {
      void utils.files.list.invalidate();
      revalidator.revalidate();
    },
  });
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(initialNotice);
  const [focusAfterDelete, setFocusAfterDelete] = useState<FocusAfterDelete | null>(null);
  const show = (id: string, shown: boolean) =>
    setHidden((before) => {
      const after = new Set(before);
      if (shown) after.delete(id);
      else after.add(id);
      return after;
    });

  const deleteFile = (id: string, name: string) => {
    setError(null);
    setNotice(null);
    // Its neighbour among the rows shown: a row deleted a moment ago may still be in the list
    // until the list is read again, and is no place for focus to go.
    const shown = files.filter((file) => file.id === id || !hidden.has(file.id));
    const index = shown.findIndex((file) => file.id === id);
    const neighbour = shown[index + 1] ?? shown[index - 1] ?? null;
    show(id, false);
    setFocusAfterDelete({ deleted: id, next: neighbour?.id ?? null });
    remove.mutate(
      { id },
      {
        onSuccess: () => setNotice(deletedNotice(name)),
        onError: (e) => {
          const gone = e.data?.code === 'NOT_FOUND';
          setError(gone ? alreadyDeletedNotice(name) : e.message);
          // Deleted elsewhere: its row stays gone. Otherwise it comes back.
          if (!gone) show(id, true);
        },
      },
    );
  };
  return {
    shownFiles: files.filter((file) => !hidden.has(file.id)),
    deleteFile,
    error,
    setError,
    notice,
    setNotice,
    focusAfterDelete,
    setFocusAfterDelete,
  };
}
