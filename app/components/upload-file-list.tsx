import { memo } from 'react';
import { formatBytes } from '~/utils/format';

/** One file of a collection on its way: where it goes, how far it is, how it ended. */
export interface FileRow {
  path: string;
  size: number;
  sent: number;
  state: 'waiting' | 'sending' | 'retrying' | 'done' | 'failed' | 'not sent';
  /** Why it failed, in the form's words. */
  message?: string;
}

const STATE_WORDS: Record<FileRow['state'], string> = {
  waiting: 'Waiting',
  sending: 'Sending',
  retrying: 'Connection lost, trying again',
  done: 'Done',
  failed: 'Failed',
  'not sent': 'Not sent',
};

/** One row: drawn again only when its file changes (a folder may hold thousands, one on its way at a time). */
const UploadFileRow = memo(function UploadFileRow({ row }: { row: FileRow }) {
  return (
    <li className={`upload-file upload-file-${row.state.replace(' ', '-')}`}>
      <span className="upload-file-path">{row.path}</span>
      <progress value={row.sent} max={row.size || 1} aria-label={`Progress of ${row.path}`} />
      <span className="upload-file-bytes">
        {formatBytes(row.sent)} of {formatBytes(row.size)}
      </span>
      <span className="upload-file-state">
        {row.state === 'failed' && row.message ? `Failed: ${row.message}` : STATE_WORDS[row.state]}
      </span>
    </li>
  );
});

/** The files of a collection upload, each with its progress (ADR 0039). */
export function UploadFileList({ rows }: { rows: FileRow[] }) {
  return (
    <ul className="upload-files" aria-label="Files being uploaded">
      {rows.map((row, index) => (
        // The same path may come twice (two files chosen with one name): the position tells them apart.
        // biome-ignore lint/suspicious/noArrayIndexKey: the list never reorders while it is shown
        <UploadFileRow key={index} row={row} />
      ))}
    </ul>
  );
}
