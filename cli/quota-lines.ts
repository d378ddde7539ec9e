// What the admin commands say about sizes: bytes in binary units, and `users quota`'s answer,
// the quota in the unit the admin wrote beside the binary one (500 MB is 476.8 MiB, which is
// how the files page and `users list` show it).
import { readSize, type UserSummary } from '../server/services/accounts';

/** `476.8 MiB`: bytes in powers of 1024, one decimal. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** "alice's quota is now 500 MB (476.8 MiB)"; `value` is what the admin wrote (a size, none or default). */
export function quotaSetLine(user: UserSummary, value: string): string {
  return `${user.username}'s quota is now ${describeQuota(user, value)}`;
}

function describeQuota(user: UserSummary, value: string): string {
  if (user.quotaSource === 'default')
    return `the default (${user.quotaBytes === null ? 'unlimited' : formatBytes(user.quotaBytes)})`;
  if (user.quotaBytes === null) return 'unlimited';
  const size = readSize(value);
  if (!size) return formatBytes(user.quotaBytes);
  // 2 GiB needs no translation, nor 512 B; 500 MB and 1048576 B get their binary size beside them.
  const plainEnough = size.written.endsWith('iB') || size.bytes < 1024;
  return plainEnough ? size.written : `${size.written} (${formatBytes(size.bytes)})`;
}

/** Said when the user already stores at least their quota: the quota stands, but uploads will be refused. */
export function quotaWarning(user: UserSummary): string | null {
  if (user.quotaBytes === null || user.bytes === 0 || user.bytes < user.quotaBytes) return null;
  return `Warning: ${user.username} already stores ${formatBytes(user.bytes)}: new uploads will be refused until files are deleted`;
}
