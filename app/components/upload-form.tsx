import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type ChosenFile, filesAtTheirNames, fromAFolder } from '~/utils/chosen-files.client';
import { type SentShareSettings, tooLargeMessage } from '~/utils/form-errors';
import { type ResumableUpload, unfinishedUploads } from '~/utils/resumable-upload.client';
import { ShareSettingsFields, type ExpiryChoice } from './share-settings-fields';
import { sendCollection } from './upload/collection-driver';
import { DropZone } from './upload/drop-zone';
import { sendOneFile } from './upload/single-file-driver';
import { UploadButtons, UploadProgress } from './upload/upload-progress';
import { linkSettings, notSendable, type UploadAllowance } from './upload/upload-words';
import { useChosenFiles } from './upload/use-chosen-files';
import { type UploadStatus, useUploadStatus } from './upload/use-upload-status';
import { UploadFileList } from './upload-file-list';

/**
 * The upload under way, from the form's submit to Pause and Resume: one file as a resumable
 * upload, several (or a folder) as a collection of them.
 */
function useUploadDriver(status: UploadStatus, maxUploadBytes: number, ownerId: string) {
  const uploadRef = useRef<ResumableUpload | null>(null);
  const ended = () => {
    uploadRef.current = null;
  };
  const start = (form: HTMLFormElement, files: ChosenFile[]) => {
    if (files.length === 0) return status.setError('Choose a file first.');
    status.setNotice(null);
    if (files.length > 1 || fromAFolder(files)) {
      // Several files, or a folder, make a collection: each goes as a resumable upload into it.
      const refused = notSendable(files, maxUploadBytes);
      if (refused) return status.setError(refused);
      status.setError(null);
      status.setPhase('uploading');
      uploadRef.current = sendCollection(status, form, files, maxUploadBytes, ended);
      return;
    }
    const { file } = files[0];
    // The server would refuse it (413) once the upload began: say so before sending a byte.
    if (file.size > maxUploadBytes) return status.setError(tooLargeMessage(maxUploadBytes));
    uploadRef.current = sendOneFile(status, file, linkSettings(form), ownerId, maxUploadBytes, ended);
  };
  const pause = () => {
    uploadRef.current?.pause();
    status.setPhase('paused');
    status.setNotice('Paused. What was sent is kept.');
  };
  const resume = () => {
    uploadRef.current?.resume();
    status.setPhase('uploading');
    status.setNotice(null);
  };
  return { start, pause, resume };
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
  /** The page's JavaScript runs: the folder picker shows, and the file input is no longer the only way to choose. */
  const [scripted, setScripted] = useState(false);
  const [unfinished, setUnfinished] = useState<string[]>([]);
  const status = useUploadStatus(serverError);
  const { chosen, choose, chooseFolder, drop } = useChosenFiles(inputRef, status, maxUploadBytes);
  const driver = useUploadDriver(status, maxUploadBytes, ownerId);
  const { error, collectionLink, notice, progress, rows, phase } = status;

  useEffect(() => setScripted(true), []);
  useEffect(() => {
    void unfinishedUploads(ownerId).then(setUnfinished);
  }, [ownerId]);

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    driver.start(event.currentTarget, chosen.length > 0 ? chosen : filesAtTheirNames(inputRef.current?.files ?? []));
  };

  const busy = phase !== 'idle';
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
      <DropZone
        input={inputRef}
        scripted={scripted}
        busy={busy}
        allowance={allowance}
        chosen={chosen}
        onChoose={choose}
        onDrop={drop}
      />
      {scripted ? (
        <div className="row-actions">
          <button type="button" className="secondary" onClick={chooseFolder} disabled={busy}>
            Choose a folder
          </button>
        </div>
      ) : null}
      {progress ? <UploadProgress progress={progress} /> : null}
      {rows ? <UploadFileList rows={rows} /> : null}
      {notice ? (
        <p className="muted upload-notice" role="status">
          {notice}
        </p>
      ) : null}
      <UploadButtons phase={phase} onPause={driver.pause} onResume={driver.resume} />
    </form>
  );
}
