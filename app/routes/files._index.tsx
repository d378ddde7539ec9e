import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { json } from '@remix-run/node';
import { Link, useLoaderData, useRevalidator } from '@remix-run/react';
import { useState, type FormEvent } from 'react';
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

  const onDelete = (event: FormEvent<HTMLFormElement>, id: string, name: string) => {
    event.preventDefault();
    if (!window.confirm(deleteQuestion(name))) return;
    setError(null);
    setNotice(null);
    remove.mutate(
      { id },
      {
        onSuccess: () => setNotice(deletedNotice(name)),
        onError: (e) => setError(e.data?.code === 'NOT_FOUND' ? alreadyDeletedNotice(name) : e.message),
      },
    );
  };

  return (
    <main className="wide">
      <div className="heading-row">
        <h1>My files</h1>
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
