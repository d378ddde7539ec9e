import { counted, formatBytes } from '~/utils/format';

interface StorageUsageProps {
  bytes: number;
  files: number;
  /** Held by unfinished uploads (ADR 0018): counted against the quota as if stored. */
  heldBytes: number;
  unfinishedUploads: number;
  quota: number | null;
}

/** The space the user's files take, and what unfinished uploads hold, against their quota when they have one (a bar). */
export function StorageUsage({ bytes, files, heldBytes, unfinishedUploads, quota }: StorageUsageProps) {
  const count = counted(files, 'file');
  const held =
    unfinishedUploads > 0
      ? ` · ${formatBytes(heldBytes)} held by ${counted(unfinishedUploads, 'unfinished upload')}`
      : '';
  if (quota === null) {
    return <p className="muted storage-usage">{`${formatBytes(bytes)} used by ${count}${held} · no storage quota`}</p>;
  }
  const percent = quota === 0 ? 100 : Math.min(100, Math.round((bytes / quota) * 100));
  return (
    <div className="storage-usage">
      <label>
        <span>{`${formatBytes(bytes)} of ${formatBytes(quota)} used (${percent}%) by ${count}${held}`}</span>
        <progress value={Math.min(bytes, quota)} max={quota} />
      </label>
    </div>
  );
}
