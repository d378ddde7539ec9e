import { formatBytes } from '~/utils/format';

/** The space the user's files take, against their quota when they have one (a bar). */
export function StorageUsage({ bytes, files, quota }: { bytes: number; files: number; quota: number | null }) {
  const count = `${files} ${files === 1 ? 'file' : 'files'}`;
  if (quota === null) {
    return <p className="muted storage-usage">{`${formatBytes(bytes)} used by ${count} · no storage quota`}</p>;
  }
  const percent = quota === 0 ? 100 : Math.min(100, Math.round((bytes / quota) * 100));
  return (
    <div className="storage-usage">
      <label>
        <span>{`${formatBytes(bytes)} of ${formatBytes(quota)} used (${percent}%) by ${count}`}</span>
        <progress value={Math.min(bytes, quota)} max={quota} />
      </label>
    </div>
  );
}
