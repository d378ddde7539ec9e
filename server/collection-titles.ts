/**
 * A collection's title when none is given (ADR 0039): a folder's files (`project/src/app.ts`,
 * `project/README.md`) are called by the folder's name, `project` (and the archive
 * `project.zip`); files from several folders, or from none, are counted: "7 files". One rule for
 * the service and for the upload page, which names the collection before all its files are in.
 * Pure: the browser bundle takes it too (app/components/upload-form.tsx).
 */

/** The longest title a collection takes (server/schemas.ts). */
const MAX_TITLE_CHARACTERS = 200;

/** The one top folder every path is inside, or null (a file at the top, or two top folders). */
export function folderTitle(paths: readonly string[]): string | null {
  let folder: string | null = null;
  for (const path of paths) {
    const slash = path.indexOf('/');
    if (slash <= 0) return null;
    const top = path.slice(0, slash);
    if (folder !== null && top !== folder) return null;
    folder = top;
  }
  // A title is at most 200 characters; a longer folder name keeps its first ones.
  return folder === null ? null : Array.from(folder).slice(0, MAX_TITLE_CHARACTERS).join('').trim() || null;
}

/** "1 file", "7 files": the title of files that share no folder. */
export function countedTitle(count: number): string {
  return count === 1 ? '1 file' : `${count} files`;
}
