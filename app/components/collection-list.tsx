import { Link, useSubmit } from '@remix-run/react';
import type { MouseEvent } from 'react';
import { useConfirmation } from '~/components/confirm-dialog';
import { PasswordLock } from '~/components/icons';
import { counted, formatBytes } from '~/utils/format';

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
 * with JavaScript the same question is asked in the page, and the answer posted to that page.
 */
export function CollectionList({ collections }: { collections: ListedCollection[] }) {
  const submit = useSubmit();
  const { ask, dialog } = useConfirmation();
  if (collections.length === 0) return null;
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
      if (answer) submit(answer, { method: 'post', action: `/collections/${collection.id}/delete` });
    });
  };
  return (
    <section className="collections" aria-labelledby="collections-heading">
      <h2 id="collections-heading">Collections</h2>
      <ul className="collection-list">
        {collections.map((collection) => (
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
