// What a run found: the lines of the table, and the JSON that holds them with the run's settings,
// its machine and the service's RSS between phases.
import { S } from './settings.mjs';
import { round } from './stats.mjs';

export const results = { settings: { ...S, only: S.only ? [...S.only] : null }, machine: {}, measures: [] };
export const rows = [];
/** One line of the table (and of the JSON). ratio = service ÷ baseline. */
export function record(row) {
  const ratio = row.service !== undefined && row.baseline ? row.service / row.baseline : undefined;
  const full = { ...row, ratio: ratio === undefined ? undefined : round(ratio, 3) };
  if (row.check) full.pass = row.check(row.service, ratio);
  delete full.check;
  rows.push(full);
  results.measures.push(full);
}
