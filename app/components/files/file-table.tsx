import { Link } from '@remix-run/react';
import type { FormEvent } from 'react';
import { FilePicture, type ListedFile } from '~/components/file-gallery';
import { FileName } from '~/components/file-name';
import { PasswordLock } from '~/components/icons';
import { LocalTime } from '~/components/local-time';
import { MediaType } from '~/components/media-type';
import { ReceivedFrom } from '~/components/received-from';
import { ShareLink } from '~/components/share-link';
import { downloadsNoun, formatBytes, formatDownloads, formatExpiry } from '~/utils/format';

/** A row of My files: a file as the list shows it, with its share link and expiry. */
export interface ListedRow extends ListedFile {
  url: string;
  expiresAt: string | null;
}

/** Asks before a delete (the page's dialog), given the row's form event, id and name. */
export type DeleteAsker = (event: FormEvent<HTMLFormElement>, id: string, name: string) => void;

export function FileTable({
  files,
  now,
  onDelete,
}: {
  files: readonly ListedRow[];
  now: number;
  onDelete: DeleteAsker;
}) {
  return (
    <div className="table-wrap">
      <table className="files">
        <thead>
          <tr>
            <th scope="col" className="thumb">
              <span className="visually-hidden">Picture</span>
            </th>
            <th scope="col">Name and share link</th>
            <th scope="col">Size</th>
            <th scope="col">Type</th>
            <th scope="col">Uploaded</th>
            <th scope="col">Expires</th>
            <th scope="col">
              {/* On two lines: the column is no wider than its counts. */}
              Views ·<br />
              downloads
            </th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <FileRow key={file.id} file={file} now={now} onDelete={onDelete} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FileRow({ file, now, onDelete }: { file: ListedRow; now: number; onDelete: DeleteAsker }) {
  return (
    <tr data-file-id={file.id}>
      <td className="thumb">
        <FilePicture file={file} pixels={40} />
      </td>
      <td className="name">
        <Link to={`/f/${file.id}`}>
          <FileName name={file.originalName} />
        </Link>
        {file.hasPassword ? <PasswordLock /> : null}
        <ShareLink url={file.url} label={`Share link for ${file.originalName}`} />
        <ReceivedFrom file={file} />
      </td>
      <td className="size">{formatBytes(file.size)}</td>
      <td className="type">
        <MediaType type={file.mimeType} />
      </td>
      <td className="date">
        <LocalTime iso={file.createdAt} />
      </td>
      <td className="expires">{formatExpiry(file.expiresAt, now)}</td>
      <td className="downloads">
        {/* Views of its page apart from downloads (ADR 0066). The nouns are shown only in
            the narrow layout, where no column header says what the numbers count. */}
        {file.views}
        <span className="count-noun">{file.views === 1 ? ' view' : ' views'}</span>
        {' · '}
        {formatDownloads(file.downloads, file.maxDownloads)}
        <span className="count-noun">{` ${downloadsNoun(file.downloads, file.maxDownloads)}`}</span>
      </td>
      <td>
        <FileRowActions file={file} onDelete={onDelete} />
      </td>
    </tr>
  );
}

/**
 * Without JavaScript the Delete button opens the confirmation page, which comes back to the list
 * (ADR 0008); with it, the page's own dialog asks and the delete is done in place.
 */
function FileRowActions({ file, onDelete }: { file: ListedRow; onDelete: DeleteAsker }) {
  return (
    <form method="get" action={`/files/${file.id}/delete`} onSubmit={(e) => onDelete(e, file.id, file.originalName)}>
      <button type="submit" className="danger small" aria-label={`Delete ${file.originalName}`}>
        Delete
      </button>
    </form>
  );
}
