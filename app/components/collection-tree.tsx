import { FileName } from '~/components/file-name';
import { FileTypeIcon, fileKind } from '~/components/file-type-icon';
import { FolderIcon } from '~/components/icons';
import { MediaType } from '~/components/media-type';
import { formatBytes } from '~/utils/format';

/** One file of a collection as its page lists it. */
export interface CollectionTreeFile {
  /** Where it sits in the collection (and its archive), e.g. `photos/2026/beach.jpg`. */
  path: string;
  id: string;
  size: number;
  mimeType: string;
  /** Whether its thumbnail may be shown: an inline-safe image whose own link counts nothing and asks this visitor nothing. */
  thumbnail: boolean;
}

interface Folder {
  name: string;
  /** Folders and files in the order their first file has in the collection. */
  children: Array<Folder | Leaf>;
}

interface Leaf {
  name: string;
  file: CollectionTreeFile;
}

/** The paths as nested folders, each folder where its first file is in the collection's order. */
function folderTree(files: CollectionTreeFile[]): Folder {
  const root: Folder = { name: '', children: [] };
  for (const file of files) {
    const parts = file.path.split('/');
    let folder = root;
    for (const name of parts.slice(0, -1)) {
      let next = folder.children.find((child): child is Folder => 'children' in child && child.name === name);
      if (!next) {
        next = { name, children: [] };
        folder.children.push(next);
      }
      folder = next;
    }
    folder.children.push({ name: parts[parts.length - 1], file });
  }
  return root;
}

/**
 * A collection's files as a tree of folders: open `<details>` (so it folds without JavaScript),
 * each file with its size, type and a link to its own page, where its own link's controls hold.
 */
export function CollectionTree({ files }: { files: CollectionTreeFile[] }) {
  return <TreeList folder={folderTree(files)} />;
}

function TreeList({ folder }: { folder: Folder }) {
  return (
    <ul className="tree">
      {folder.children.map((child) =>
        'children' in child ? (
          <li key={`d:${child.name}`} className="tree-folder">
            <details open>
              <summary>
                <FolderIcon />
                {child.name}
              </summary>
              <TreeList folder={child} />
            </details>
          </li>
        ) : (
          <li key={`f:${child.file.id}`} className="tree-file">
            <FileRow name={child.name} file={child.file} />
          </li>
        ),
      )}
    </ul>
  );
}

function FileRow({ name, file }: { name: string; file: CollectionTreeFile }) {
  const page = `/f/${encodeURIComponent(file.id)}`;
  return (
    <>
      {file.thumbnail ? (
        <img className="thumbnail" src={`${page}/thumbnail`} alt="" loading="lazy" width={48} height={48} />
      ) : (
        <span className="thumbnail none" aria-hidden="true">
          <FileTypeIcon kind={fileKind(file.mimeType)} size={28} />
        </span>
      )}
      <a className="tree-name" href={page}>
        <FileName name={name} />
      </a>
      <span className="muted tree-size">{formatBytes(file.size)}</span>
      <span className="muted tree-type">
        <MediaType type={file.mimeType} />
      </span>
    </>
  );
}
