// Statistics of a series of runs, and the labels and turns they are reported with.
export const round = (x, digits = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);
export const median = (xs) => percentile(xs, 0.5);
export function percentile(xs, q) {
  if (!xs.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
export const best = (xs) => Math.max(...xs);
export const sizeLabel = (mb) => (mb >= 1024 && mb % 1024 === 0 ? `${mb / 1024} GiB` : `${mb} MiB`);

/** The contenders of a run take turns going first (a busy machine favours no one in particular). */
export const rotate = (list, run) => list.map((_, i) => list[(i + run) % list.length]);
/** Milliseconds since `t0` (a process.hrtime.bigint() value). */
export const elapsedMs = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
