import { formatBytes } from '~/utils/format';

/** One chosen file on its way to the request. */
export interface FileRow {
  file: File;
  sent: number;
  state: 'waiting' | 'sending' | 'retrying' | 'sent' | 'failed' | 'not sent';
  /** The server's words when it refused the file. */
  message?: string;
}

/** A file just chosen, waiting to go. */
export function waitingRow(file: File): FileRow {
  return { file, sent: 0, state: 'waiting' };
}

/** Why files were not sent, in the server's words for the first of them ("This file request is closed…"). */
export function whyNotSent(notSent: FileRow[]): string {
  const message = notSent.find((row) => row.message)?.message ?? 'The connection was lost.';
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

function rowState(row: FileRow): string {
  switch (row.state) {
    case 'waiting':
      return 'Waiting';
    case 'sending':
      return 'Sending';
    case 'retrying':
      return 'Connection lost, trying again…';
    case 'sent':
      return 'Sent';
    case 'failed':
      return row.message ?? 'Not sent';
    case 'not sent':
      return `Not sent: ${row.message ?? 'an earlier file was refused.'}`;
  }
}

/**
 * The chosen files, each with its size, progress and how it ended. A live region: the guest
 * hears each file's end (sent, or the server's refusal); the percent beside the bar is for the
 * eye, the bar itself tells a screen reader how far it is.
 */
export function FileRows({ rows, onRemove }: { rows: FileRow[]; onRemove: ((index: number) => void) | null }) {
  return (
    <ul className="request-files" aria-label="Files to send" aria-live="polite">
      {rows.map((row, index) => {
        const { name, size } = row.file;
        const percent = row.state === 'sent' ? 100 : size > 0 ? Math.floor((row.sent / size) * 100) : 0;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: two files may share a name; a row keeps its place while shown
          <li key={index} className={`request-file request-file-${row.state.replace(' ', '-')}`}>
            <span className="request-file-name">{name}</span>
            <span className="request-file-size muted">{formatBytes(size)}</span>
            <progress
              value={row.state === 'sent' ? size || 1 : row.sent}
              max={size || 1}
              aria-label={`Progress of ${name}`}
            />
            <span className="request-file-percent" aria-hidden="true">
              {percent}%
            </span>
            <span className="request-file-state">{rowState(row)}</span>
            {onRemove && row.state === 'waiting' ? (
              <button type="button" className="secondary small request-file-remove" onClick={() => onRemove(index)}>
                Remove<span className="visually-hidden"> {name}</span>
              </button>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
