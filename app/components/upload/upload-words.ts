// What the upload form says and checks before it sends anything. Pure: no state, no DOM but a form's values.
import { formatBytes, formatLimit, unitsOf } from '~/utils/format';
import type { ChosenFile } from '~/utils/chosen-files.client';
import type { FileRow } from '../upload-file-list';

/** The link options the form holds, as the upload's metadata (empty fields left out). */
export function linkSettings(form: HTMLFormElement): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of ['expiresIn', 'maxDownloads', 'password']) {
    const value = new FormData(form).get(name);
    if (typeof value === 'string' && value !== '') settings[name] = value;
  }
  return settings;
}

/** The most files a collection holds (docs/api.md). */
const MOST_FILES = 10_000;

/** Why these files cannot go as a collection of resumable uploads, or null: each file is checked alone. */
export function notSendable(files: ChosenFile[], maxUploadBytes: number): string | null {
  if (files.length > MOST_FILES)
    return `A collection holds at most ${MOST_FILES.toLocaleString('en')} files. Upload them in smaller sets.`;
  const tooLarge = files.filter(({ file }) => file.size > maxUploadBytes);
  if (tooLarge.length === 1)
    return `${tooLarge[0].path} is too large. Files on this server can be up to ${formatLimit(maxUploadBytes)}.`;
  if (tooLarge.length > 1)
    return `${tooLarge.length} of these files are too large (${tooLarge[0].path} and others). Files on this server can be up to ${formatLimit(maxUploadBytes)}.`;
  return null;
}

/** The most the next upload may be (the loader's `myUploadAllowance`). */
export interface UploadAllowance {
  bytes: number;
  limitedBy: 'file' | 'quota';
  quota: number | null;
}

/**
 * "Up to 1 GiB.", or, when the quota leaves less, "Up to 23 MiB (the room left in your 100 MiB)."
 * The room is rounded down and said in the quota's units (ADR 0065).
 */
export function limitInWords({ bytes, limitedBy, quota }: UploadAllowance): string {
  if (limitedBy === 'file' || quota === null) return `Up to ${formatLimit(bytes)}.`;
  if (bytes === 0) return `No room left in your ${formatLimit(quota)}: delete files to upload again.`;
  return `Up to ${formatBytes(bytes, unitsOf(quota), 'down')} (the room left in your ${formatLimit(quota)}).`;
}

/** What the page says once a collection upload has ended with files left out. */
export function endedInWords(rows: FileRow[], problem: string | null, collectionMade: boolean): string {
  const done = rows.filter((row) => row.state === 'done').length;
  const failed = rows.filter((row) => row.state === 'failed');
  const notSent = rows.filter((row) => row.state === 'not sent').length;
  const parts: string[] = [];
  if (failed.length === 1) parts.push(`${failed[0].path} could not be uploaded: ${failed[0].message ?? 'it failed'}.`);
  else if (failed.length > 1)
    parts.push(
      `${failed.length} files could not be uploaded (${failed[0].path}: ${failed[0].message ?? 'it failed'}).`,
    );
  if (problem && !(failed.length === 1 && failed[0].message === problem)) parts.push(problem);
  if (notSent > 0) parts.push(`${notSent === 1 ? '1 file was' : `${notSent} files were`} not sent.`);
  if (collectionMade)
    parts.push(
      done === 1
        ? 'The 1 file that arrived is in the collection.'
        : `The ${done} files that arrived are in the collection.`,
    );
  else if (done > 0) parts.push('The file that arrived is in your files.');
  return parts.join(' ');
}
