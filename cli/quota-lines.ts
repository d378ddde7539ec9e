// What the admin commands say about quotas, in the units each quota reads in everywhere (ADR
// 0065): a quota set as 500MB is "500 MB" here, on the files page and in a full quota's 413, and
// the bytes measured against it are said in the same units.
import { formatBytes, formatLimit, unitsOf } from '../server/utilities/byte-sizes';
import type { UserSummary } from '../server/services/accounts';

/** "alice's quota is now 500 MB". */
export function quotaSetLine(user: UserSummary): string {
  return `${user.username}'s quota is now ${describeQuota(user)}`;
}

function describeQuota(user: UserSummary): string {
  const quota = user.quotaBytes === null ? 'unlimited' : formatLimit(user.quotaBytes);
  return user.quotaSource === 'default' ? `the default (${quota})` : quota;
}

/** A size measured against the user's quota, in its units (binary without one). */
export function formatUsage(bytes: number, user: Pick<UserSummary, 'quotaBytes'>): string {
  return formatBytes(bytes, user.quotaBytes === null ? 'binary' : unitsOf(user.quotaBytes));
}

/** `users list`'s quota column: "quota 100 MiB (default)", "quota 100 MiB, 478 MiB over", "no quota". */
export function quotaColumn(user: UserSummary): string {
  if (user.quotaBytes === null) return 'no quota';
  const source = user.quotaSource === 'default' ? ' (default)' : '';
  const over = user.bytes > user.quotaBytes ? `, ${formatUsage(user.bytes - user.quotaBytes, user)} over` : '';
  return `quota ${formatLimit(user.quotaBytes)}${source}${over}`;
}

/** Said when the user already stores at least their quota: the quota stands, but uploads will be refused. */
export function quotaWarning(user: UserSummary): string | null {
  if (user.quotaBytes === null || user.bytes === 0 || user.bytes < user.quotaBytes) return null;
  return `Warning: ${user.username} already stores ${formatUsage(user.bytes, user)}: new uploads will be refused until files are deleted`;
}
