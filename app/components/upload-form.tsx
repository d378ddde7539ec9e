import { useCallback, useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { countedTitle, folderTitle } from '../../server/collection-titles';
import { formatBytes, formatLimit, unitsOf } from '~/utils/format';
import { tooLargeMessage, uploadErrorInWords, type SentShareSettings } from '~/utils/form-errors';
import {
  type ChosenFile,
  entriesOfDrop,
  filesAtTheirNames,
  filesOfEntries,
  filesOfFolderInput,
  fromAFolder,
} from '~/utils/chosen-files.client';
import { retitleCollection, startCollectionUpload } from '~/utils/collection-upload.client';
import { startResumableUpload, unfinishedUploads, type ResumableUpload } from '~/utils/resumable-upload.client';
import { ShareSettingsFields, type ExpiryChoice } from './share-settings-fields';
import { type FileRow, UploadFileList } from './upload-file-list';

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

/** The most files a collection holds (docs/api.md). */
const MOST_FILES = 10_000;

/** Why these files cannot go as a collection of resumable uploads, or null: each file is checked alone. */
function notSendable(files: ChosenFile[], maxUploadBytes: number): string | null {
  if (files.length > MOST_FILES)
    return `A collection holds at most ${MOST_FILES.toLocaleString('en')} files. Upload them in smaller sets.`;
  const tooLarge = files.filter(({ file }) => file.size > maxUploadBytes);
  if (tooLarge.length === 1)
    return `${tooLarge[0].path} is too large. Files on this server can be up to ${formatLimit(maxUploadBytes)}.`;
  if (tooLarge.length > 1)
    return `${tooLarge.length} of these files are too large (${tooLarge[0].path} and others). Files on this server can be up to ${formatLimit(maxUploadBytes)}.`;
  return null;
}

/** The most the next upload may be (the loader's `myUploadAllowance`). */
export interface UploadAllowance {
  bytes: number;
  limitedBy: 'file' | 'quota';
  quota: number | null;
}

/**
 * "Up to 1 GiB.", or, when the quota leaves less, "Up to 23 MiB (the room left in your 100 MiB)."
 * The room is rounded down and said in the quota's units (ADR 0065).
 */
function limitInWords({ bytes, limitedBy, quota }: UploadAllowance): string {
  if (limitedBy === 'file' || quota === null) return `Up to ${formatLimit(bytes)}.`;
  if (bytes === 0) return `No room left in your ${formatLimit(quota)}: delete files to upload again.`;
  return `Up to ${formatBytes(bytes, unitsOf(quota), 'down')} (the room left in your ${formatLimit(quota)}).`;
}

/** What the page says once a collection upload has ended with files left out. */
function endedInWords(rows: FileRow[], problem: string | null, collectionMade: boolean): string {
  const done = rows.filter((row) => row.state === 'done').length;
  const failed = rows.filter((row) => row.state === 'failed');
  const notSent = rows.filter((row) => row.state === 'not sent').length;
  const parts: string[] = [];
  if (failed.length === 1) parts.push(`${failed[0].path} could not be uploaded: ${failed[0].message ?? 'it failed'}.`);
  else if (failed.length > 1)
    parts.push(
      `${failed.length} files could not be uploaded (${failed[0].path}: ${failed[0].message ?? 'it failed'}).`,
    );
  if (problem && !(failed.length === 1 && failed[0].message === problem)) parts.push(problem);
  if (notSent > 0) parts.push(`${notSent === 1 ? '1 file was' : `${notSent} files were`} not sent.`);
  if (collectionMade)
    parts.push(
      done === 1
        ? 'The 1 file that arrived is in the collection.'
        : `The ${done} files that arrived are in the collection.`,
    );
  else if (done > 0) parts.push('The file that arrived is in your files.');
  return parts.join(' ');
}

/**
 * A plain multipart form that works without JavaScript (it posts to /upload; several files make
 * a collection, ADR 0038). With JavaScript it sends one file as a resumable upload: real
 * progress, pause and resume, retries after a dropped connection, and a reload that forgets
 * nothing (choose the same file again). It also accepts a dropped or pasted file. Several files,
 * or a folder (chosen, or dropped), go as resumable uploads into one collection, each at its
 * path in the folder, with the progress of each and of all (ADR 0039).
 */
export function UploadForm({
  serverError,
  sent,
  expiry,
  maxUploadBytes,
  allowance,
  ownerId,
}: {
  serverError: string | null;
  /** The link options of a form the server refused (without JavaScript): shown again. */
  sent: SentShareSettings | null;
  expiry: { choices: ExpiryChoice[]; defaultValue: string };
  /** The server's MAX_UPLOAD_BYTES: checked before sending anything. */
  maxUploadBytes: number;
  /** Said beside the file input: MAX_UPLOAD_BYTES, or less when the quota leaves less. */
  allowance: UploadAllowance;
  /** Whose unfinished uploads the browser may name and carry on (a shared browser keeps several people's). */
  ownerId: string;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const uploadRef = useRef<ResumableUpload | null>(null);
  /** The page's JavaScript runs: the folder picker shows, and the file input is no longer the only way to choose. */
  const [scripted, setScripted] = useState(false);
  const [chosen, setChosen] = useState<ChosenFile[]>([]);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [rows, setRows] = useState<FileRow[] | null>(null);
  const [collectionLink, setCollectionLink] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [notice, setNotice] = useState<string | null>(null);
  const [unfinished, setUnfinished] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(serverError);
  const [dragging, setDragging] = useState(false);

  useEffect(() => setScripted(true), []);

  /** Files chosen apart from the file input (a folder): the input lets go of what it held. */
  const chooseFiles = useCallback(
    (files: ChosenFile[]) => {
      if (files.length === 0) {
        setError('That folder holds no files.');
        return;
      }
      if (inputRef.current) inputRef.current.value = '';
      setChosen(files);
      setCollectionLink(null);
      setError(notSendable(files, maxUploadBytes));
    },
    [maxUploadBytes],
  );

  const choose = useCallback(
    (files: FileList | null) => {
      if (!files?.length || !inputRef.current) return;
      inputRef.current.files = files;
      const list = filesAtTheirNames(files);
      setChosen(list);
      setCollectionLink(null);
      setError(
        list.length === 1
          ? list[0].file.size > maxUploadBytes
            ? tooLargeMessage(maxUploadBytes)
            : null
          : notSendable(list, maxUploadBytes),
      );
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

  /**
   * The folder picker: an input made for the moment it is used, so that the form keeps one file
   * input (the one that works without JavaScript) and a folder is never posted as the plain form.
   */
  const chooseFolder = () => {
    const picker = document.createElement('input');
    picker.type = 'file';
    picker.webkitdirectory = true;
    picker.multiple = true;
    picker.hidden = true;
    picker.setAttribute('aria-label', 'Folder to upload');
    const done = () => picker.remove();
    picker.addEventListener('change', () => {
      if (picker.files) chooseFiles(filesOfFolderInput(picker.files));
      done();
    });
    picker.addEventListener('cancel', done);
    document.body.append(picker);
    picker.click();
  };

  const uploadCollection = (form: HTMLFormElement, files: ChosenFile[]) => {
    const typedTitle = new FormData(form).get('title');
    const title = typeof typedTitle === 'string' && typedTitle.trim() !== '' ? typedTitle.trim() : null;
    // Untitled: a folder's name (its files share it), else the count (ADR 0039). Decided here:
    // the collection is made with its first file, before the server knows the others.
    const folder = folderTitle(files.map(({ path }) => path));
    const total = files.reduce((sum, { file }) => sum + file.size, 0);
    // The rows as they stand: each change is shown as a copy, and the end reads them here.
    const current: FileRow[] = files.map(({ file, path }) => ({ path, size: file.size, sent: 0, state: 'waiting' }));
    const update = (index: number, change: Partial<FileRow>) => {
      current[index] = { ...current[index], ...change };
      setRows([...current]);
      setProgress({ sent: current.reduce((sum, row) => sum + row.sent, 0), total });
    };
    setRows([...current]);
    setProgress({ sent: 0, total });
    setCollectionLink(null);
    uploadRef.current = startCollectionUpload(
      files,
      { title: title ?? folder ?? countedTitle(files.length), settings: linkSettings(form) },
      {
        onFileProgress: (index, sent) => update(index, { sent, state: 'sending' }),
        onFileRetrying: (index) => update(index, { state: 'retrying' }),
        onFileDone: (index) => update(index, { sent: files[index].file.size, state: 'done' }),
        onFileFailed: (index, status, message) => {
          if (status === 401) {
            window.location.assign('/login?redirectTo=/upload');
            return;
          }
          const words =
            status === null && message.startsWith('It arrived')
              ? message
              : status === null
                ? 'the connection was lost'
                : uploadErrorInWords(status, message, maxUploadBytes);
          update(index, { state: 'failed', message: words.replace(/\.$/, '') });
        },
        onCollection: (id) => setCollectionLink(`/c/${id}`),
        onFinished: (collectionId, problem) => {
          if (problem?.status === 401) {
            window.location.assign('/login?redirectTo=/upload');
            return;
          }
          if (collectionId && !problem && current.every((row) => row.state === 'done')) {
            window.location.assign(`/c/${collectionId}`);
            return;
          }
          current.forEach((row, index) => {
            if (row.state === 'waiting') update(index, { state: 'not sent' });
          });
          uploadRef.current = null;
          setPhase('idle');
          setNotice(null);
          const problemInWords = problem
            ? problem.status === null
              ? 'The connection was lost.'
              : uploadErrorInWords(problem.status, problem.message, maxUploadBytes)
            : null;
          setError(endedInWords(current, problemInWords, collectionId !== null));
          // Its title counted the files chosen: it now says how many it holds (a folder's name stays).
          const arrived = current.filter((row) => row.state === 'done').length;
          if (collectionId && !title && !folder) void retitleCollection(collectionId, countedTitle(arrived));
        },
      },
    );
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const files = chosen.length > 0 ? chosen : filesAtTheirNames(inputRef.current?.files ?? []);
    event.preventDefault();
    if (files.length === 0) {
      setError('Choose a file first.');
      return;
    }
    setNotice(null);
    if (files.length > 1 || fromAFolder(files)) {
      // Several files, or a folder, make a collection: each goes as a resumable upload into it.
      const refused = notSendable(files, maxUploadBytes);
      if (refused) {
        setError(refused);
        return;
      }
      setError(null);
      setPhase('uploading');
      uploadCollection(event.currentTarget, files);
      return;
    }
    const { file } = files[0];
    // The server would refuse it (413) once the upload began: say so before sending a byte.
    if (file.size > maxUploadBytes) {
      setError(tooLargeMessage(maxUploadBytes));
      return;
    }
    setError(null);
    setRows(null);
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
    if (phase !== 'idle') return;
    // The entries must be taken now: the drop's items are gone once this handler returns.
    const entries = entriesOfDrop(event.dataTransfer);
    if (entries?.some((entry) => entry.isDirectory)) {
      filesOfEntries(entries).then(chooseFiles, () =>
        setError('The dropped folder could not be read. Choose it instead.'),
      );
      return;
    }
    choose(event.dataTransfer.files);
  };

  const busy = phase !== 'idle';
  const percent = progress && progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  const chosenBytes = chosen.reduce((sum, { file }) => sum + file.size, 0);
  return (
    <form method="post" action="/upload" encType="multipart/form-data" onSubmit={onSubmit} className="card stack">
      {error ? (
        <p className="alert" role="alert">
          {error}
          {collectionLink && !busy ? (
            <>
              {' '}
              <a href={collectionLink}>Open the collection</a>
            </>
          ) : null}
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
        <span className="muted">
          {scripted
            ? 'When you choose several files or a folder, they are shared as one collection with this title (left empty, a folder keeps its name).'
            : 'When you choose several files, they are shared as one collection with this title.'}
        </span>
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
        <span className="dropzone-title">
          {/* Dropping and pasting are the page's JavaScript: without it, only the file input is promised. */}
          {scripted
            ? 'Choose a file or several, or drop or paste them here (a folder can be dropped too)'
            : 'Choose a file or several'}
        </span>
        <span className="muted upload-limit">{limitInWords(allowance)}</span>
        <input
          ref={inputRef}
          type="file"
          name="file"
          multiple
          required={!scripted}
          disabled={busy}
          onChange={(e) => choose(e.currentTarget.files)}
        />
        {chosen.length === 1 ? (
          <span className="muted chosen-files">
            {chosen[0].path} · {formatBytes(chosen[0].file.size)}
          </span>
        ) : null}
        {chosen.length > 1 ? (
          <span className="muted chosen-files">
            {chosen.length} files · {formatBytes(chosenBytes)}
          </span>
        ) : null}
      </label>
      {scripted ? (
        <div className="row-actions">
          <button type="button" className="secondary" onClick={chooseFolder} disabled={busy}>
            Choose a folder
          </button>
        </div>
      ) : null}
      {progress ? (
        <div className="progress" aria-live="polite">
          <progress value={progress.sent} max={progress.total || 1} aria-label="Upload progress" />
          <span>
            {formatBytes(progress.sent)} of {formatBytes(progress.total)} ({percent}%)
          </span>
        </div>
      ) : null}
      {rows ? <UploadFileList rows={rows} /> : null}
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
