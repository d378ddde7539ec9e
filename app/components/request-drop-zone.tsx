import { useState } from 'react';
import { counted, formatBytes, formatLimit, unitsOf } from '~/utils/format';
import { FileRows } from './request-upload/file-rows';
import { RequestAnswer } from './request-upload/request-answer';
import { useRequestUpload } from './request-upload/use-request-upload';

export { SentFiles } from './request-upload/sent-files';

/** What the guest's page knows of a request (the loader's view). */
export interface RequestLimits {
  id: string;
  filesLeft: number | null;
  bytesLeft: number | null;
  /** The limit `bytesLeft` is what is left of: its units are the ones the page says it in. */
  bytesLeftOf: number | null;
  maxUploadBytes: number;
  requireName: boolean;
}

/**
 * "Up to 5 more files, 2 GiB in all.": what the request still takes, the bytes in the units of
 * the limit they are left of (ADR 0065), rounded down.
 */
function limitsLeft(
  filesLeft: number | null,
  bytesLeft: number | null,
  bytesLeftOf: number | null,
  maxUploadBytes: number,
): string {
  const files = filesLeft === null ? 'Any number of files' : `Up to ${counted(filesLeft, 'more file')}`;
  const bytes =
    bytesLeft === null
      ? `each up to ${formatLimit(maxUploadBytes)}`
      : `${formatBytes(bytesLeft, bytesLeftOf === null ? 'binary' : unitsOf(bytesLeftOf), 'down')} in all`;
  return `${files}, ${bytes}.`;
}

/**
 * The guest's form on a file request's page (ADR 0048). The server renders the plain multipart
 * form, which works without JavaScript; once the page's JavaScript runs, its file input becomes a
 * drop zone for several files, each sent as a resumable upload with its own progress, so a
 * large file survives a dropped connection. The answer lists what this guest sent in this visit.
 */
export function RequestUploadForm({ request, serverError }: { request: RequestLimits; serverError: string | null }) {
  const upload = useRequestUpload(request.id, serverError);
  const { inputRef, scripted, phase, rows, sentInVisit, guest, error, add } = upload;
  const [dragging, setDragging] = useState(false);

  if (phase === 'finished')
    return (
      <RequestAnswer
        rows={rows}
        sentInVisit={sentInVisit}
        takesMore={upload.takesMore}
        onTryAgain={upload.tryAgain}
        onSendMore={upload.sendMore}
      />
    );

  const sending = phase === 'sending';
  // What this guest sent in this visit no longer fits: the server says what is left in the end.
  const filesLeft = request.filesLeft === null ? null : Math.max(0, request.filesLeft - sentInVisit.length);
  const bytesSent = sentInVisit.reduce((sum, file) => sum + file.size, 0);
  const bytesLeft = request.bytesLeft === null ? null : Math.max(0, request.bytesLeft - bytesSent);
  return (
    <form
      method="post"
      encType="multipart/form-data"
      className="card stack"
      onSubmit={scripted ? upload.send : undefined}
      onDragOver={
        scripted
          ? (event) => {
              event.preventDefault();
              if (!sending) setDragging(true);
            }
          : undefined
      }
      onDragLeave={
        scripted
          ? (event) => {
              // Moving onto a field inside the form is no leaving.
              if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
            }
          : undefined
      }
      onDrop={
        scripted
          ? (event) => {
              event.preventDefault();
              setDragging(false);
              upload.drop(event.dataTransfer);
            }
          : undefined
      }
    >
      <p className="muted">{limitsLeft(filesLeft, bytesLeft, request.bytesLeftOf, request.maxUploadBytes)}</p>
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <label>
        <span>Your name{request.requireName ? '' : ' (optional)'}</span>
        <input
          type="text"
          name="name"
          maxLength={100}
          required={request.requireName}
          autoComplete="name"
          defaultValue={guest.name}
          readOnly={sending}
        />
      </label>
      <label>
        <span>Note (optional)</span>
        <textarea name="note" maxLength={1000} rows={3} defaultValue={guest.note} readOnly={sending} />
      </label>
      {scripted ? (
        <label className={`request-drop-zone${dragging ? ' dragging' : ''}`}>
          <span className="request-drop-zone-title">Drop or paste files here, or choose them</span>
          <span className="request-drop-zone-button" aria-hidden="true">
            Choose files
          </span>
          <input
            ref={inputRef}
            type="file"
            name="file"
            multiple
            className="visually-hidden"
            disabled={sending}
            onChange={(event) => {
              add(Array.from(event.currentTarget.files ?? []));
              // Emptied, so that choosing again adds files (the same one too) to the list.
              event.currentTarget.value = '';
            }}
          />
        </label>
      ) : (
        <label>
          <span>Files</span>
          <input ref={inputRef} type="file" name="file" multiple required />
        </label>
      )}
      {scripted && rows.length > 0 ? <FileRows rows={rows} onRemove={sending ? null : upload.remove} /> : null}
      <button type="submit" disabled={sending}>
        {sending ? 'Sending…' : 'Send'}
      </button>
    </form>
  );
}
