const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** 1536 → "1.5 KB" (binary multiples, one decimal where it helps). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${UNITS[unit]}`;
}

/** The same text on the server and in the browser (no hydration mismatch); LocalTime refines it. */
export function formatUtcDate(iso: string): string {
  return new Date(iso).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** When a link stops working, said relative to `now`: "expires in 3 days", "no expiry", "expired". */
export function formatExpiry(expiresAt: string | null, now: number): string {
  if (expiresAt === null) return 'no expiry';
  const left = Date.parse(expiresAt) - now;
  if (left <= 0) return 'expired';
  const units: Array<[number, string]> = [
    [86400_000, 'day'],
    [3600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    const count = Math.floor(left / size);
    if (count >= 1) return `expires in ${count} ${name}${count === 1 ? '' : 's'}`;
  }
  return 'expires in less than a minute';
}

/** "2 / 5" with a limit, "2" without. */
export function formatDownloads(downloads: number, maxDownloads: number | null): string {
  return maxDownloads === null ? String(downloads) : `${downloads} / ${maxDownloads}`;
}
