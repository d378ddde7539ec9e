// My files as a gallery (ADR 0046): a grid of cards, each the file's thumbnail (or the icon of
// its kind), its name, size and upload date, linking to the file's page. Plain links and
// lazy images: it works without JavaScript, and the browser fetches only the thumbnails in view.
import { Link } from '@remix-run/react';
import { FileName } from '~/components/file-name';
import { FileTypeIcon, fileKind } from '~/components/file-type-icon';
import { PasswordLock } from '~/components/icons';
import { LocalTime } from '~/components/local-time';
import { ReceivedFrom } from '~/components/received-from';
import { formatBytes, formatViewsAndDownloads } from '~/utils/format';

/** What a card (or a row's picture) needs of a file. */
export interface ListedFile {
  id: string;
  originalName: string;
  mimeType: string;
  size: number;
  createdAt: string;
  hasPassword: boolean;
  /** Looks at its share page and downloads by others (ADR 0066), and the link's limit. */
  views: number;
  downloads: number;
  maxDownloads: number | null;
  /** Whether `/f/<id>/thumbnail` has a picture to show the owner (an image whose link is not gone). */
  thumbnail: boolean;
  /** A guest's file: the request it came through and what the guest left (ADR 0048). */
  request?: { title: string } | null;
  receivedFrom?: { name: string | null; note: string | null } | null;
}

/** The thumbnails fit a square of this many pixels (ADR 0041): the box the gallery reserves. */
const THUMBNAIL_PIXELS = 320;

/**
 * A file's picture: its thumbnail, loaded lazily into a box of fixed proportions (the page never
 * jumps as they arrive), or the icon of its kind. Decorative: the name beside it says which file.
 */
export function FilePicture({ file, pixels }: { file: ListedFile; pixels: number }) {
  return file.thumbnail ? (
    <img
      className="file-thumbnail"
      src={`/f/${file.id}/thumbnail`}
      alt=""
      width={pixels}
      height={pixels}
      loading="lazy"
      decoding="async"
    />
  ) : (
    <FileTypeIcon kind={fileKind(file.mimeType)} size={Math.min(pixels, 48)} />
  );
}

export function FileGallery({ files }: { files: readonly ListedFile[] }) {
  return (
    <ul className="file-gallery" aria-label="Your files">
      {files.map((file) => (
        <li key={file.id} className="file-card" data-file-id={file.id}>
          {/* Named in words: the name below is drawn in two boxes (its middle cut, its extension kept),
              which a screen reader would read with a space between them. */}
          <Link to={`/f/${file.id}`} className="file-card-link" aria-label={file.originalName}>
            <span className="file-card-picture">
              <FilePicture file={file} pixels={THUMBNAIL_PIXELS} />
            </span>
            <span className="file-card-name" title={file.originalName}>
              <FileName name={file.originalName} />
            </span>
          </Link>
          <span className="file-card-facts muted">
            {formatBytes(file.size)}
            {' · '}
            <LocalTime iso={file.createdAt} />
            {file.hasPassword ? <PasswordLock /> : null}
          </span>
          <span className="file-card-facts file-card-counts muted">
            {formatViewsAndDownloads(file.views, file.downloads, file.maxDownloads)}
          </span>
          <ReceivedFrom file={file} />
        </li>
      ))}
    </ul>
  );
}
