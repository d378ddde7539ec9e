import { useCallback, useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { formatBytes } from '~/utils/format';
import { tooLargeMessage, uploadErrorInWords, type SentShareSettings } from '~/utils/form-errors';
import { startResumableUpload, unfinishedUploads, type ResumableUpload } from '~/utils/resumable-upload.client';
import { ShareSettingsFields, type ExpiryChoice } from './share-settings-fields';

interface Progress {
  sent: number;
  total: number;
}

type Phase = 'idle' | 'uploading' | 'paused' | 'retrying';

/** The link options the form holds, as the upload's metadata (empty fields left out). */
function linkSettings(form: HTMLFormElement): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of ['expiresIn', 'maxDownloads', 'password']) {
    const value = new FormData(form).get(name);
    if (typeof value === 'string' && value !== '') settings[name] = value;
  }
  return settings;
}

/**
 * Why the chosen files cannot go in one form, or null: the form carries at most the server's
 * MAX_UPLOAD_BYTES in one request, one file or several together.
 */
function tooLargeForForm(files: File[], maxUploadBytes: number): string | null {
  if (files.some((file) => file.size > maxUploadBytes)) return tooLargeMessage(maxUploadBytes);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > maxUploadBytes)
    return `Together these files are larger than ${formatBytes(maxUploadBytes)}, the most one upload takes. Upload them in smaller sets.`;
  return null;
}

/**
 * A plain multipart form that works without JavaScript (it posts to /upload). With
 * JavaScript it sends the file as a resumable upload: real progress, pause and resume, retries
 * after a dropped connection, and a reload that forgets nothing (choose the same file again).
 * It also accepts a dropped or pasted file. Several files chosen at once make a collection: the
 * form then posts them as it does without JavaScript (ADR 0038).
 */
export function UploadForm({
  serverError,
  sent,
  expiry,
  maxUploadBytes,
  ownerId,
}: {
  serverError: string | null;
  /** The link options of a form the server refused (without JavaScript): shown again. */
  sent: SentShareSettings | null;
  expiry: { choices: ExpiryChoice[]; defaultValue: string };
  /** The server's MAX_UPLOAD_BYTES: said beside the file input, and checked before sending anything. */
  maxUploadBytes: number;
  /** Whose unfinished uploads the browser may name and carry on (a shared browser keeps several people's). */
  ownerId: string;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<ResumableUpload | null>(null);
  const [chosen, setChosen] = useState<File[]>([]);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [notice, setNotice] = useState<string | null>(null);
  const [unfinished, setUnfinished] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(serverError);
  const [dragging, setDragging] = useState(false);

  const choose = useCallback(
    (files: FileList | null) => {
      if (!files?.length || !inputRef.current) return;
      inputRef.current.files = files;
      const list = Array.from(files);
      setChosen(list);
      setError(tooLargeForForm(list, maxUploadBytes));
    },
    [maxUploadBytes],
  );

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      if (event.clipboardData?.files.length) {
        event.preventDefault();
        choose(event.clipboardData.files);
      }
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, [choose]);

  useEffect(() => {
    void unfinishedUploads(ownerId).then(setUnfinished);
  }, [ownerId]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const several = Array.from(inputRef.current?.files ?? []);
    if (several.length > 1) {
      // Several files make a collection: the form posts them as it does without JavaScript.
      const tooLarge = tooLargeForForm(several, maxUploadBytes);
      if (tooLarge) {
        event.preventDefault();
        setError(tooLarge);
        return;
      }
      setError(null);
      setNotice(`Uploading ${several.length} files…`);
      return;
    }
    event.preventDefault();
    const file = inputRef.current?.files?.[0];
    if (!file) {
      setError('Choose a file first.');
      return;
    }
    // The server would refuse it (413) once the upload began: say so before sending a byte.
    if (file.size > maxUploadBytes) {
      setError(tooLargeMessage(maxUploadBytes));
      return;
    }
    setError(null);
    setNotice(null);
    setPhase('uploading');
    setProgress({ sent: 0, total: file.size });
    uploadRef.current = startResumableUpload(file, linkSettings(event.currentTarget), ownerId, {
      onProgress: (sent, total) => {
        setProgress({ sent, total });
        setPhase((current) => (current === 'retrying' ? 'uploading' : current));
        setNotice((current) => (current?.includes('Trying again') ? null : current));
      },
      onRetrying: (delayMs, status) => {
        setPhase('retrying');
        const when = delayMs >= 1000 ? ` in ${Math.round(delayMs / 1000)} s` : '';
        // 409/423: the server was still saving the request before; nothing was lost.
        setNotice(
          status === 409 || status === 423
            ? `Catching up with the server. Trying again${when}…`
            : `Connection lost. Trying again${when}…`,
        );
      },
      onResumed: () => setNotice('Carrying on with the upload of this file begun earlier.'),
      onDone: (fileId) => {
        setProgress({ sent: file.size, total: file.size });
        window.location.assign(fileId ? `/f/${fileId}` : '/files');
      },
      onFailed: (status, message) => {
        if (status === 401) {
          window.location.assign('/login?redirectTo=/upload');
          return;
        }
        uploadRef.current = null;
        setPhase('idle');
        setProgress(null);
        setNotice(null);
        setError(
          status === null
            ? 'The connection was lost during the upload. Choose the file again to carry on.'
            : uploadErrorInWords(status, message, maxUploadBytes),
        );
      },
    });
  };

  const pause = () => {
    uploadRef.current?.pause();
    setPhase('paused');
    setNotice('Paused. What was sent is kept.');
  };
  const resume = () => {
    uploadRef.current?.resume();
    setPhase('uploading');
    setNotice(null);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files);
  };

  const busy = phase !== 'idle';
  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <form method="post" action="/upload" encType="multipart/form-data" onSubmit={onSubmit} className="card stack">
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      {unfinished.length > 0 && !busy ? (
        <p className="muted unfinished-uploads">
          Unfinished upload{unfinished.length > 1 ? 's' : ''}: {unfinished.join(', ')}. Choose the same file again to
          carry on where it stopped.
        </p>
      ) : null}
      <ShareSettingsFields choices={expiry.choices} defaultValue={expiry.defaultValue} sent={sent ?? undefined} />
      <label>
        <span>Collection title</span>
        <input type="text" name="title" maxLength={200} autoComplete="off" />
        <span className="muted">When you choose several files, they are shared as one collection with this title.</span>
      </label>
      {error && sent ? (
        <p className="muted">
          {sent.passwordTyped
            ? 'Choose the file again. Type the password again too: it is never sent back to the page.'
            : 'Choose the file again.'}
        </p>
      ) : null}
      <label
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <span className="dropzone-title">Choose a file or several, or drop or paste one here</span>
        <span className="muted upload-limit">{`Up to ${formatBytes(maxUploadBytes)}.`}</span>
        <input
          ref={inputRef}
          type="file"
          name="file"
          multiple
          required
          disabled={busy}
          onChange={(e) => choose(e.currentTarget.files)}
        />
        {chosen.length === 1 ? (
          <span className="muted">
            {chosen[0].name} · {formatBytes(chosen[0].size)}
          </span>
        ) : null}
        {chosen.length > 1 ? (
          <span className="muted">
            {chosen.length} files · {formatBytes(chosen.reduce((sum, file) => sum + file.size, 0))}
          </span>
        ) : null}
      </label>
      {progress ? (
        <div className="progress" aria-live="polite">
          <progress value={progress.sent} max={progress.total || 1} aria-label="Upload progress" />
          <span>
            {formatBytes(progress.sent)} of {formatBytes(progress.total)} ({percent}%)
          </span>
        </div>
      ) : null}
      {notice ? (
        <p className="muted upload-notice" role="status">
          {notice}
        </p>
      ) : null}
      {phase === 'idle' ? (
        <button type="submit">Upload</button>
      ) : (
        <div className="row-actions">
          <button type="submit" disabled>
            {phase === 'paused' ? 'Paused' : 'Uploading…'}
          </button>
          {phase === 'paused' ? (
            <button type="button" onClick={resume}>
              Resume
            </button>
          ) : (
            <button type="button" className="secondary" onClick={pause}>
              Pause
            </button>
          )}
        </div>
      )}
    </form>
  );
}
