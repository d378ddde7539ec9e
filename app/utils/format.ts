// Sizes in words: the formatter of the services' messages and the CLI (server/utilities/byte-sizes.ts,
// ADR 0065): a limit reads in the units it was set in, and what is measured against it too.
export { formatBytes, formatLimit, readSize, type SizeUnits, unitsOf } from '../../server/utilities/byte-sizes';

/** The same text on the server and in the browser (no hydration mismatch); LocalTime refines it. */
export function formatUtcDate(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * When a link stops working, said relative to `now`: "expires in 3 days", "no expiry", "expired".
 * The count is rounded to the nearest unit, never cut down: a link set to expire in 1 day reads
 * "in 1 day" on the page its upload leads to, not "in 23 hours" because a second has passed.
 * The unit is the largest one the rounded time left reaches (59.5 minutes reads "1 hour").
 */
export function formatExpiry(expiresAt: string | null, now: number): string {
  if (expiresAt === null) return 'no expiry';
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return 'expired';
  const minutes = Math.round(left / 60_000);
  if (minutes < 1) return 'expires in less than a minute';
  if (minutes < 60) return `expires in ${counted(minutes, 'minute')}`;
  const hours = Math.round(left / 3600_000);
  if (hours < 24) return `expires in ${counted(hours, 'hour')}`;
  return `expires in ${counted(Math.round(left / 86400_000), 'day')}`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * When a link stops working, for whoever received it: "Expires on 3 December 2026, 14:00 UTC".
 * In UTC, so the server and the browser write the same words.
 */
export function formatExpiryDate(iso: string): string {
  const date = new Date(iso);
  const time = date.toISOString().slice(11, 16);
  return `Expires on ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${time} UTC`;
}

/** "1 day", "2 days", "0 downloads": a count with its noun in the right number. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * The noun after a downloads count: "1 download", "0 downloads"; with a limit it follows the
 * limit, as in "2 / 5 downloads" and "0 / 1 download" (read "0 of 1 download").
 */
export function downloadsNoun(downloads: number, maxDownloads: number | null): string {
  return (maxDownloads ?? downloads) === 1 ? 'download' : 'downloads';
}

/** "2 / 5" with a limit, "2" without. */
export function formatDownloads(downloads: number, maxDownloads: number | null): string {
  return maxDownloads === null ? String(downloads) : `${downloads} / ${maxDownloads}`;
}

/**
 * "3 views · 1 / 5 downloads", "1 view · 0 downloads": the owner's counts of a link, views of its
 * page apart from downloads (ADR 0066), each noun in the right number.
 */
export function formatViewsAndDownloads(views: number, downloads: number, maxDownloads: number | null): string {
  return `${counted(views, 'view')} · ${formatDownloads(downloads, maxDownloads)} ${downloadsNoun(downloads, maxDownloads)}`;
}
