import { Form, Link } from '@remix-run/react';
import type { FormEvent } from 'react';
import type { FileRequestDto, ReceivedFileDto } from '../../../server/services/file-requests/owner';
import { ConfirmedForm } from '~/components/confirm-dialog';
import { FileName } from '~/components/file-name';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { counted, formatBytes, formatLimit, type SizeUnits, unitsOf } from '~/utils/format';

/** What the card shows of a request, with the files it received. */
export type ListedRequest = FileRequestDto & { files: ReceivedFileDto[] };

/** What a request received reads in its limit's units, if it has one (ADR 0065). */
function unitsBeside(maxBytes: number | null): SizeUnits {
  return maxBytes === null ? 'binary' : unitsOf(maxBytes);
}

const STATE_WORDS = { open: 'Open', closed: 'Closed', expired: 'Expired', full: 'Full' } as const;

/** One request: its link, what it received (the guests' names and notes as text), and its actions. */
export function RequestCard({
  request: one,
  onSetClosed,
  onDelete,
}: {
  request: ListedRequest;
  onSetClosed: (closed: boolean) => void;
  onDelete: () => void;
}) {
  return (
    <li className="card stack" data-request-id={one.id}>
      <div className="file-request-heading">
        <h2>{one.title}</h2>
        <span className={`badge ${one.state}`}>{STATE_WORDS[one.state]}</span>
        {one.newFiles > 0 ? <span className="badge new">{one.newFiles} new</span> : null}
      </div>
      <p className="share-row">
        <span className="muted">Link</span>
        <ShareLink url={one.url} label={`Link of ${one.title}`} />
      </p>
      <p className="muted">
        {`${counted(one.filesReceived, 'file')} received (${formatBytes(one.bytesReceived, unitsBeside(one.maxBytes))})`}
        {one.maxFiles !== null ? ` of at most ${one.maxFiles}` : ''}
        {one.maxBytes !== null ? `; at most ${formatLimit(one.maxBytes)} in all` : ''}
        {one.expiresAt ? (
          <>
            ; {one.state === 'expired' ? 'expired' : 'open until'} <LocalTime iso={one.expiresAt} />
          </>
        ) : null}
        {one.hasPassword ? '; password-protected' : ''}
      </p>
      {one.files.length > 0 ? (
        <ul className="file-request-files">
          {one.files.map((file) => (
            <li key={file.id}>
              <span className="file-request-file">
                <Link to={`/f/${file.id}`}>
                  <FileName name={file.originalName} />
                </Link>{' '}
                <span className="muted">{`(${formatBytes(file.size)})`}</span>
                {file.isNew ? <span className="badge new">new</span> : null}
              </span>
              {file.guestName ? <span className="guest-name">from {file.guestName}</span> : null}
              {file.guestNote ? <q className="guest-note">{file.guestNote}</q> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <RequestActions request={one} onSetClosed={onSetClosed} onDelete={onDelete} />
    </li>
  );
}

/** Close or reopen, and delete (asked first with JavaScript): forms, done in place with JavaScript. */
function RequestActions({
  request: one,
  onSetClosed,
  onDelete,
}: {
  request: ListedRequest;
  onSetClosed: (closed: boolean) => void;
  onDelete: () => void;
}) {
  const closed = one.state === 'closed';
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSetClosed(!closed);
  };
  return (
    <div className="actions">
      <Form method="post" onSubmit={onSubmit}>
        <input type="hidden" name="id" value={one.id} />
        {closed ? (
          <button type="submit" name="intent" value="reopen">
            Reopen
          </button>
        ) : (
          <button type="submit" name="intent" value="close">
            Close
          </button>
        )}
      </Form>
      <ConfirmedForm
        method="post"
        confirmation={{
          question: `Delete the file request “${one.title}”? Its link stops working; the files it received stay in My files.`,
          action: 'Delete',
        }}
        onConfirmed={onDelete}
      >
        <input type="hidden" name="id" value={one.id} />
        <button type="submit" name="intent" value="delete" className="danger">
          Delete
        </button>
      </ConfirmedForm>
    </div>
  );
}
