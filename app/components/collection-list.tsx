import { Link } from '@remix-run/react';
import { PasswordLock } from '~/components/icons';
import { counted, formatBytes } from '~/utils/format';

interface ListedCollection {
  id: string;
  title: string;
  fileCount: number;
  totalSize: number;
  hasPassword: boolean;
}

/** The owner's collections on their files page: each title linking to its page, with its count and size, and a Delete link. */
export function CollectionList({ collections }: { collections: ListedCollection[] }) {
  if (collections.length === 0) return null;
  return (
    <section className="collections" aria-labelledby="collections-heading">
      <h2 id="collections-heading">Collections</h2>
      <ul className="collection-list">
        {collections.map((collection) => (
          <li key={collection.id}>
            <Link to={`/c/${collection.id}`}>{collection.title}</Link>
            {collection.hasPassword ? <PasswordLock /> : null}
            <span className="muted">{`${counted(collection.fileCount, 'file')}, ${formatBytes(collection.totalSize)}`}</span>
            <Link to={`/collections/${collection.id}/delete`} aria-label={`Delete “${collection.title}”`}>
              Delete
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
