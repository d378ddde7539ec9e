import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { formatBytes } from '~/utils/format';
import { ShareSettingsFields, type ExpiryChoice } from './share-settings-fields';

interface Progress {
  sent: number;
  total: number;
}

/**
 * A plain multipart form that works without JavaScript (it posts to /upload). With
 * JavaScript it sends the file through the API with XHR to show real progress, and accepts
 * a dropped or pasted file.
 */
export function UploadForm({
  serverError,
  expiry,
}: {
  serverError: string | null;
  expiry: { choices: ExpiryChoice[]; defaultValue: string };
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(serverError);
  const [dragging, setDragging] = useState(false);

  const choose = (files: FileList | null) => {
    if (!files?.length || !inputRef.current) return;
    inputRef.current.files = files;
    setChosen(files[0]);
    setError(null);
  };

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      if (event.clipboardData?.files.length) {
        event.preventDefault();
        choose(event.clipboardData.files);
      }
    };
    window.addEventListener('paste', onPaste);
    return () => window.removeEventListener('paste', onPaste);
  }, []);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const file = inputRef.current?.files?.[0];
    if (!file) {
      setError('Choose a file first.');
      return;
    }
    // The form's own fields, in its order: the link options come before the file, as the API wants.
    const body = new FormData(event.currentTarget);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/files');
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => setProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      if (xhr.status === 201 && xhr.response?.file?.id) {
        setProgress({ sent: file.size, total: file.size });
        window.location.assign(`/f/${xhr.response.file.id}`);
        return;
      }
      if (xhr.status === 401) {
        window.location.assign('/login?redirectTo=/upload');
        return;
      }
      setProgress(null);
      setError(xhr.response?.error ?? `Upload failed (${xhr.status}).`);
    };
    xhr.onerror = () => {
      setProgress(null);
      setError('The connection was lost during the upload. Please try again.');
    };
    setError(null);
    setProgress({ sent: 0, total: file.size });
    xhr.send(body);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files);
  };

  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <form method="post" action="/upload" encType="multipart/form-data" onSubmit={onSubmit} className="card stack">
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <ShareSettingsFields choices={expiry.choices} defaultValue={expiry.defaultValue} />
      <label
        className={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <span className="dropzone-title">Choose a file, or drop or paste one here</span>
        <input ref={inputRef} type="file" name="file" required onChange={(e) => choose(e.currentTarget.files)} />
        {chosen ? (
          <span className="muted">
            {chosen.name} · {formatBytes(chosen.size)}
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
      <button type="submit" disabled={progress !== null}>
        {progress ? 'Uploading…' : 'Upload'}
      </button>
    </form>
  );
}
