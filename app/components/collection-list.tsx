import { Link, useNavigate } from '@remix-run/react';
import { type MouseEvent, useState } from 'react';
import { useConfirmation } from '~/components/confirm-dialog';
import { PasswordLock } from '~/components/icons';
import { COLLECTION_DELETE_NOT_FOUND } from '~/utils/delete-messages';
import { counted, formatBytes } from '~/utils/format';
import { refusalOf, useRowsGone } from '~/utils/in-place';
import { trpc } from '~/utils/trpc';

interface ListedCollection {
  id: string;
  title: string;
  fileCount: number;
  totalSize: number;
  hasPassword: boolean;
}

/**
 * The owner's collections on their files page: each title linking to its page, with its count and
 * size, and a Delete link. The link opens the page that asks first (/collections/<id>/delete);
 * with JavaScript the same question is asked in the page and the collection deleted through
 * /trpc (ADR 0077): it goes from the list at once, and the page then says so as the page without
 * JavaScript does (/files?deleted=<title>); if the server refuses, it comes back with the message.
 */
export function CollectionList({ collections }: { collections: ListedCollection[] }) {
  const navigate = useNavigate();
  const { ask, dialog } = useConfirmation();
  const rows = useRowsGone();
  const [error, setError] = useState<string | null>(null);
  const remove = trpc.collections.delete.useMutation();
  if (collections.length === 0) return null;
  const deleteInPlace = (collection: ListedCollection, answer: FormData) => {
    rows.hide(collection.id);
    setError(null);
    remove.mutate(
      { id: collection.id, deleteFiles: answer.get('files') === 'delete' },
      {
        onSuccess: ({ title }) => navigate(`/files?deleted=${encodeURIComponent(title)}`),
        onError: (failure) => {
          rows.show(collection.id);
          const { status, message } = refusalOf(failure);
          setError(status === 404 ? COLLECTION_DELETE_NOT_FOUND : message);
        },
      },
    );
  };
  const onDelete = (event: MouseEvent<HTMLAnchorElement>, collection: ListedCollection) => {
    event.preventDefault();
    void ask({
      question: `Delete the collection “${collection.title}”? Its link will stop working.`,
      action: 'Delete',
      fields:
        collection.fileCount > 0 ? (
          <label className="checkbox">
            <input type="checkbox" name="files" value="delete" />
            <span>{`Also delete its ${counted(collection.fileCount, 'file')} (their own links stop working too). Otherwise they stay in My files.`}</span>
          </label>
        ) : null,
    }).then((answer) => {
      if (answer) deleteInPlace(collection, answer);
    });
  };
  return (
    <section className="collections" aria-labelledby="collections-heading">
      <h2 id="collections-heading">Collections</h2>
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <ul className="collection-list">
        {collections
          .filter((collection) => !rows.gone(collection.id))
          .map((collection) => (
            <li key={collection.id}>
              <Link to={`/c/${collection.id}`}>{collection.title}</Link>
              {collection.hasPassword ? <PasswordLock /> : null}
              <span className="muted">{`${counted(collection.fileCount, 'file')}, ${formatBytes(collection.totalSize)}`}</span>
              <Link
                to={`/collections/${collection.id}/delete`}
                aria-label={`Delete “${collection.title}”`}
                onClick={(event) => onDelete(event, collection)}
              >
                Delete
              </Link>
            </li>
          ))}
      </ul>
      {dialog}
    </section>
  );
}
