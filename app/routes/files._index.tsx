import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Link, useLoaderData, useRevalidator } from '@remix-run/react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { StorageUsage } from '~/components/storage-usage';
import { alreadyDeletedNotice, deletedNotice, deleteQuestion } from '~/utils/delete-messages';
import { downloadsNoun, formatBytes, formatDownloads, formatExpiry } from '~/utils/format';
import { requireUserPage } from '~/utils/session.server';
import { trpc } from '~/utils/trpc';

export const meta: MetaFunction = () => [{ title: 'My files · File sharing' }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const files = await services.files.listFiles(ctx);
  const { usage, quota } = await services.quotas.myStorage(ctx);
  // Expiry is shown relative to this moment, the same on the server and in the browser.
  return json({ files: files.map((file) => ({ ...file, url: services.files.shareUrl(ctx, file.id) })), now: ctx.clock.now(), usage, quota });
}

export default function Files() {
  const { files: initialFiles, now, usage, quota } = useLoaderData<typeof loader>();
  // With JavaScript the list lives in the tRPC query cache, so deleting needs no reload.
  // The cache lives only while this page is shown (gcTime 0): the next visit starts again
  // from its loader's fresh list, never from what a previous session saw in this tab.
  const utils = trpc.useUtils();
  const list = trpc.files.list.useQuery(undefined, { initialData: initialFiles, staleTime: 30_000, gcTime: 0 });
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // Success or not, the list is fetched again: a file deleted meanwhile (another tab, the API)
  // disappears from it too.
  // The loader runs again too, so the space used follows the list.
  const revalidator = useRevalidator();
  const remove = trpc.files.delete.useMutation({
    onSettled: () => {
      void utils.files.list.invalidate();
      revalidator.revalidate();
    },
  });
  const files = list.data ?? initialFiles;

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
    const next = rows.find((row) => row.dataset.fileId === focusAfterDelete.next)?.querySelector<HTMLButtonElement>('form button');
    (next ?? headingRef.current)?.focus();
  }, [files, focusAfterDelete]);

  const onDelete = (event: FormEvent<HTMLFormElement>, id: string, name: string) => {
    event.preventDefault();
    if (!window.confirm(deleteQuestion(name))) return;
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
      </div>
      <StorageUsage bytes={usage.bytes} files={usage.files} quota={quota} />
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <p className="notice" role="status" hidden={!notice}>
        {notice}
      </p>
      {files.length === 0 ? (
        <p className="card empty">
          No files yet. <Link to="/upload">Upload your first file</Link>.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="files">
            <thead>
              <tr>
                <th scope="col">Name and share link</th>
                <th scope="col">Size</th>
                <th scope="col">Type</th>
                <th scope="col">Uploaded</th>
                <th scope="col">Expires</th>
                <th scope="col">Downloads</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.id} data-file-id={file.id}>
                  <td className="name">
                    <Link to={`/f/${file.id}`}>{file.originalName}</Link>
                    {file.hasPassword ? (
                      <span className="lock" role="img" aria-label="Password-protected" title="Password-protected">
                        🔒
                      </span>
                    ) : null}
                    <ShareLink url={file.url} label={`Share link for ${file.originalName}`} />
                  </td>
                  <td className="size">{formatBytes(file.size)}</td>
                  <td className="type">{file.mimeType}</td>
                  <td className="date">
                    <LocalTime iso={file.createdAt} />
                  </td>
                  <td className="expires">{formatExpiry(file.expiresAt, now)}</td>
                  <td className="downloads">
                    {formatDownloads(file.downloads, file.maxDownloads)}
                    {/* Shown only in the narrow layout, where no column header says what the number counts. */}
                    <span className="count-noun">{` ${downloadsNoun(file.downloads, file.maxDownloads)}`}</span>
                  </td>
                  <td>
                    {/* Without JavaScript it deletes and comes back here (ADR 0008); with it, the
                        browser's confirm dialog asks first and the delete is done in place. */}
                    <form method="post" action={`/files/${file.id}/delete`} onSubmit={(e) => onDelete(e, file.id, file.originalName)}>
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
    </main>
  );
}
