import { flushSync } from 'react-dom';
import { countedTitle, folderTitle } from '../../../server/collection-titles';
import type { ChosenFile } from '~/utils/chosen-files.client';
import { retitleCollection, startCollectionUpload } from '~/utils/collection-upload.client';
import { uploadErrorInWords } from '~/utils/form-errors';
import type { ResumableUpload } from '~/utils/resumable-upload.client';
import type { FileRow } from '../upload-file-list';
import { endedInWords, linkSettings } from './upload-words';
import type { UploadStatus } from './use-upload-status';

/**
 * Sends several files, or a folder, as resumable uploads into one collection (ADR 0039), showing
 * each file's progress and all of it; on success the browser goes to the collection's page.
 * `onEnded` is called when it stops short of that.
 */
export function sendCollection(
  status: UploadStatus,
  form: HTMLFormElement,
  files: ChosenFile[],
  maxUploadBytes: number,
  onEnded: () => void,
): ResumableUpload {
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
    status.setRows([...current]);
    status.setProgress({ sent: current.reduce((sum, row) => sum + row.sent, 0), total });
  };
  status.setRows([...current]);
  status.setProgress({ sent: 0, total });
  status.setCollectionLink(null);
  return startCollectionUpload(
    files,
    { title: title ?? folder ?? countedTitle(files.length), settings: linkSettings(form) },
    {
      onFileProgress: (index, sent) => update(index, { sent, state: 'sending' }),
      onFileRetrying: (index) => update(index, { state: 'retrying' }),
      onFileDone: (index) => update(index, { sent: files[index].file.size, state: 'done' }),
      onFileFailed: (index, code, message) => {
        if (code === 401) {
          window.location.assign('/login?redirectTo=/upload');
          return;
        }
        const words =
          code === null && message.startsWith('It arrived')
            ? message
            : code === null
              ? 'the connection was lost'
              : uploadErrorInWords(code, message, maxUploadBytes);
        update(index, { state: 'failed', message: words.replace(/\.$/, '') });
      },
      onCollection: (id) => status.setCollectionLink(`/c/${id}`),
      onFinished: (collectionId, problem) => {
        if (problem?.status === 401) {
          window.location.assign('/login?redirectTo=/upload');
          return;
        }
        if (collectionId && !problem && current.every((row) => row.state === 'done')) {
          // Every file shown done before the page goes: React would otherwise draw the last
          // file's state after the navigation began, or not at all.
          flushSync(() => status.setRows([...current]));
          window.location.assign(`/c/${collectionId}`);
          return;
        }
        current.forEach((row, index) => {
          if (row.state === 'waiting') update(index, { state: 'not sent' });
        });
        onEnded();
        status.setPhase('idle');
        status.setNotice(null);
        const problemInWords = problem
          ? problem.status === null
            ? 'The connection was lost.'
            : uploadErrorInWords(problem.status, problem.message, maxUploadBytes)
          : null;
        status.setError(endedInWords(current, problemInWords, collectionId !== null));
        // Its title counted the files chosen: it now says how many it holds (a folder's name stays).
        const arrived = current.filter((row) => row.state === 'done').length;
        if (collectionId && !title && !folder) void retitleCollection(collectionId, countedTitle(arrived));
      },
    },
  );
}
