import { formatBytes } from '~/utils/format';
import type { Phase, Progress } from './use-upload-status';

/** How much of the upload (of all its files) has arrived. */
export function UploadProgress({ progress }: { progress: Progress }) {
  const percent = progress.total > 0 ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <div className="progress" aria-live="polite">
      <progress value={progress.sent} max={progress.total || 1} aria-label="Upload progress" />
      <span>
        {formatBytes(progress.sent)} of {formatBytes(progress.total)} ({percent}%)
      </span>
    </div>
  );
}

/** Upload; while one is under way, Pause or Resume beside the disabled button. */
export function UploadButtons({
  phase,
  onPause,
  onResume,
}: {
  phase: Phase;
  onPause: () => void;
  onResume: () => void;
}) {
  if (phase === 'idle') return <button type="submit">Upload</button>;
  return (
    <div className="row-actions">
      <button type="submit" disabled>
        {phase === 'paused' ? 'Paused' : 'Uploading…'}
      </button>
      {phase === 'paused' ? (
        <button type="button" onClick={onResume}>
          Resume
        </button>
      ) : (
        <button type="button" className="secondary" onClick={onPause}>
          Pause
        </button>
      )}
    </div>
  );
}
