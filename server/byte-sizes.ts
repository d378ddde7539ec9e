/**
 * Binary multiples, so their binary names (IEC): the default upload limit, 1073741824 bytes, is
 * exactly "1 GiB", where "1 GB" would say 10^9 bytes. One formatter for the pages and for the
 * messages the services write (a full quota's 413), so a size reads the same everywhere a
 * person sees it. Pure: the browser bundle takes it too (app/utils/format.ts).
 */
const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB" (binary multiples, one decimal where it helps). */
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
