import { useEffect, useRef, useState, type DragEvent, type FormEvent, type ReactNode, type RefObject } from 'react';
import { counted, formatBytes, formatLimit, unitsOf } from '~/utils/format';
import { sendToRequest, type RequestUploads, type SentFile } from '~/utils/request-upload.client';

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

/** One chosen file on its way to the request. */
interface FileRow {
  file: File;
  sent: number;
  state: 'waiting' | 'sending' | 'retrying' | 'sent' | 'failed' | 'not sent';
  /** The server's words when it refused the file. */
  message?: string;
}

type Phase = 'choosing' | 'sending' | 'finished';

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

/** "Thank you: 2 files sent." and what they were: the answer with or without JavaScript. */
export function SentFiles({
  files,
  children,
  sectionRef,
}: {
  files: SentFile[];
  children?: ReactNode;
  /** Set when the answer replaces the form in the page: it takes the focus the form's button had. */
  sectionRef?: RefObject<HTMLElement>;
}) {
  return (
    <section className="card stack" aria-label="Sent" ref={sectionRef} tabIndex={sectionRef ? -1 : undefined}>
      <p role="status">
        <strong>Thank you: {counted(files.length, 'file')} sent.</strong>
      </p>
      <ul className="file-request-sent">
        {files.map((file, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: two files may share a name; the list only grows
          <li key={index}>
            {file.originalName} <span className="muted">{`(${formatBytes(file.size)})`}</span>
          </li>
        ))}
      </ul>
      {children}
    </section>
  );
}

/** Why files were not sent, in the server's words for the first of them ("This file request is closed…"). */
function whyNotSent(notSent: FileRow[]): string {
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
function FileRows({ rows, onRemove }: { rows: FileRow[]; onRemove: ((index: number) => void) | null }) {
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

/**
 * The guest's form on a file request's page (ADR 0048). The server renders the plain multipart
 * form, which works without JavaScript; once the page's JavaScript runs, its file input becomes a
 * drop zone for several files, each sent as a resumable upload with its own progress, so a
 * large file survives a dropped connection. The answer lists what this guest sent in this visit.
 */
export function RequestUploadForm({ request, serverError }: { request: RequestLimits; serverError: string | null }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const uploadsRef = useRef<RequestUploads | null>(null);
  const answerRef = useRef<HTMLElement>(null);
  /** The page's JavaScript runs: the drop zone replaces the plain file input. */
  const [scripted, setScripted] = useState(false);
  const [phase, setPhase] = useState<Phase>('choosing');
  const [rows, setRows] = useState<FileRow[]>([]);
  const [sentInVisit, setSentInVisit] = useState<SentFile[]>([]);
  /** The name and note typed, kept for the next files once an answer has replaced the form. */
  const [guest, setGuest] = useState({ name: '', note: '' });
  const [error, setError] = useState<string | null>(serverError);
  /** False once the server said the request is gone (unknown, closed, expired, full): no more files to offer. */
  const [takesMore, setTakesMore] = useState(true);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    setScripted(true);
    // Files chosen in the plain input before the JavaScript ran are not lost.
    const early = Array.from(inputRef.current?.files ?? []);
    if (early.length > 0) setRows(early.map((file) => ({ file, sent: 0, state: 'waiting' })));
    // Leaving the page (or this form) stops the upload under way and deletes it: it cannot be
    // carried on from another page, and it would hold its place in the request for a day.
    const leave = () => uploadsRef.current?.stop();
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, []);

  // A pasted file (a screenshot copied a moment ago) joins the list, as a dropped one does.
  useEffect(() => {
    if (phase !== 'choosing') return;
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length === 0) return;
      event.preventDefault();
      setError(null);
      setRows((current) => [...current, ...files.map((file): FileRow => ({ file, sent: 0, state: 'waiting' }))]);
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [phase]);

  // The answer replaces the form and its focused button: the focus moves to it, and a screen
  // reader reads it (a live region put in the page with its words already in is not always heard).
  useEffect(() => {
    if (phase === 'finished') answerRef.current?.focus();
  }, [phase]);

  const add = (files: File[]) => {
    if (files.length === 0) return;
    setError(null);
    setRows((current) => [...current, ...files.map((file): FileRow => ({ file, sent: 0, state: 'waiting' }))]);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (phase !== 'choosing') return;
    const items = Array.from(event.dataTransfer.items ?? []);
    if (items.some((item) => item.webkitGetAsEntry?.()?.isDirectory)) {
      setError('A folder cannot be sent here: open it and drop or choose the files in it.');
      return;
    }
    add(Array.from(event.dataTransfer.files));
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (rows.length === 0) {
      setError('Choose at least one file to send.');
      return;
    }
    const form = new FormData(event.currentTarget);
    const typed = { name: String(form.get('name') ?? '').trim(), note: String(form.get('note') ?? '').trim() };
    setGuest(typed);
    setError(null);
    setPhase('sending');
    // The rows as they stand: each change is shown as a copy.
    const current = rows.map((row) => ({ ...row }));
    const update = (index: number, change: Partial<FileRow>) => {
      current[index] = { ...current[index], ...change };
      setRows([...current]);
    };
    uploadsRef.current = sendToRequest(
      request.id,
      current.map((row) => row.file),
      typed,
      {
        onProgress: (index, sent) => update(index, { sent, state: 'sending' }),
        onRetrying: (index) => update(index, { state: 'retrying' }),
        onSent: (index, file) => {
          update(index, { sent: current[index].file.size, state: 'sent' });
          setSentInVisit((earlier) => [...earlier, file]);
        },
        onRefused: (index, status, message) => {
          update(index, { state: 'failed', message });
          if (status === 404 || status === 410) setTakesMore(false);
        },
        onSkipped: (index, message) => update(index, { state: 'not sent', message }),
        onFinished: () => {
          uploadsRef.current = null;
          setPhase('finished');
        },
      },
    );
  };

  const sendMore = () => {
    setRows([]);
    setPhase('choosing');
  };

  /** Back to the form with the files that did not go, to send again or to remove (one too large). */
  const tryAgain = () => {
    setRows((current) =>
      current
        .filter((row) => row.state !== 'sent')
        .map((row): FileRow => ({ file: row.file, sent: 0, state: 'waiting' })),
    );
    setError(null);
    setPhase('choosing');
  };

  if (phase === 'finished') {
    const rowsList = <FileRows rows={rows} onRemove={null} />;
    const notSent = rows.filter((row) => row.state !== 'sent');
    // "Send more files" follows a success; after a refusal the page says why and offers to try
    // again, unless the request takes nothing more (closed, expired, full, gone).
    const next = takesMore ? (
      <p>
        {notSent.length > 0 ? (
          <button type="button" className="secondary" onClick={tryAgain}>
            Try again
          </button>
        ) : (
          <button type="button" className="secondary" onClick={sendMore}>
            Send more files
          </button>
        )}
      </p>
    ) : null;
    if (sentInVisit.length === 0)
      return (
        <section className="card stack" aria-label="Not sent" ref={answerRef} tabIndex={-1}>
          <p className="alert" role="alert">
            {`No file was sent. ${whyNotSent(notSent)}`}
          </p>
          {rowsList}
          {next}
        </section>
      );
    return (
      <SentFiles files={sentInVisit} sectionRef={answerRef}>
        {notSent.length > 0 ? (
          <>
            <p className="alert" role="alert">
              {`${counted(notSent.length, 'file was', 'files were')} not sent. ${whyNotSent(notSent)}`}
            </p>
            {rowsList}
          </>
        ) : null}
        {next}
      </SentFiles>
    );
  }

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
      onSubmit={scripted ? onSubmit : undefined}
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
      onDrop={scripted ? onDrop : undefined}
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
      {scripted && rows.length > 0 ? (
        <FileRows
          rows={rows}
          onRemove={sending ? null : (index) => setRows((current) => current.filter((_, at) => at !== index))}
        />
      ) : null}
      <button type="submit" disabled={sending}>
        {sending ? 'Sending…' : 'Send'}
      </button>
    </form>
  );
}
