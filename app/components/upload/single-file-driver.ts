import { uploadErrorInWords } from '~/utils/form-errors';
import { type ResumableUpload, startResumableUpload } from '~/utils/resumable-upload.client';
import type { UploadStatus } from './use-upload-status';

/**
 * Sends one file as a resumable upload (tus): real progress, retries after a dropped connection,
 * an upload begun earlier carried on; on success the browser goes to the file's page. `onEnded`
 * is called when it fails.
 */
export function sendOneFile(
  status: UploadStatus,
  file: File,
  settings: Record<string, string>,
  ownerId: string,
  maxUploadBytes: number,
  onEnded: () => void,
): ResumableUpload {
  status.setError(null);
  status.setRows(null);
  status.setPhase('uploading');
  status.setProgress({ sent: 0, total: file.size });
  return startResumableUpload(file, settings, ownerId, {
    onProgress: (sent, total) => {
      status.setProgress({ sent, total });
      status.setPhase((current) => (current === 'retrying' ? 'uploading' : current));
      status.setNotice((current) => (current?.includes('Trying again') ? null : current));
    },
    onRetrying: (delayMs, code) => {
      status.setPhase('retrying');
      const when = delayMs >= 1000 ? ` in ${Math.round(delayMs / 1000)} s` : '';
      // 409/423: the server was still saving the request before; nothing was lost.
      status.setNotice(
        code === 409 || code === 423
          ? `Catching up with the server. Trying again${when}…`
          : `Connection lost. Trying again${when}…`,
      );
    },
    onResumed: () => status.setNotice('Carrying on with the upload of this file begun earlier.'),
    onDone: (fileId) => {
      status.setProgress({ sent: file.size, total: file.size });
      window.location.assign(fileId ? `/f/${fileId}` : '/files');
    },
    onFailed: (code, message) => {
      if (code === 401) {
        window.location.assign('/login?redirectTo=/upload');
        return;
      }
      onEnded();
      status.setPhase('idle');
      status.setProgress(null);
      status.setNotice(null);
      status.setError(
        code === null
          ? 'The connection was lost during the upload. Choose the file again to carry on.'
          : uploadErrorInWords(code, message, maxUploadBytes),
      );
    },
  });
}
