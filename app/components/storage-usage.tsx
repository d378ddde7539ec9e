import { counted, formatBytes, formatLimit, unitsOf } from '~/utils/format';

interface StorageUsageProps {
  bytes: number;
  files: number;
  /** Held by unfinished uploads (ADR 0018): counted against the quota as if stored. */
  heldBytes: number;
  unfinishedUploads: number;
  quota: number | null;
}

/**
 * "256 KiB of 1 MiB used (25%) by 1 file": the bytes used in the quota's own units (ADR 0065),
 * and the share of it rounded down, so that it says 100% only when full. At or over the quota
 * (lowered below what a user stores, it leaves them over), by how much and what to do instead.
 */
function usedOfQuota(bytes: number, quota: number, by: string): string {
  const units = unitsOf(quota);
  const used = `${formatBytes(bytes, units)} of ${formatLimit(quota)} used`;
  if (bytes > quota)
    return `${used} by ${by}: ${formatBytes(bytes - quota, units)} over your quota; delete files to upload again`;
  if (bytes === quota) return `${used} (100%) by ${by}: your quota is full; delete files to upload again`;
  return `${used} (${Math.floor((bytes / quota) * 100)}%) by ${by}`;
}

/** The space the user's files take, and what unfinished uploads hold, against their quota when they have one (a bar). */
export function StorageUsage({ bytes, files, heldBytes, unfinishedUploads, quota }: StorageUsageProps) {
  const count = counted(files, 'file');
  const units = quota === null ? 'binary' : unitsOf(quota);
  const held =
    unfinishedUploads > 0
      ? ` · ${formatBytes(heldBytes, units)} held by ${counted(unfinishedUploads, 'unfinished upload')}`
      : '';
  if (quota === null) {
    return <p className="muted storage-usage">{`${formatBytes(bytes)} used by ${count}${held} · no storage quota`}</p>;
  }
  return (
    <div className="storage-usage">
      <label>
        <span>{`${usedOfQuota(bytes, quota, count)}${held}`}</span>
        <progress value={Math.min(bytes, quota)} max={quota} />
      </label>
    </div>
  );
}
