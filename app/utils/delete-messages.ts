// What the pages say about deleting a file: the browser's confirm dialog and the notice on
// /files (with JavaScript), and the error pages of a delete (without).

export function deleteQuestion(name: string): string {
  return `Delete “${name}”? Its share link will stop working.`;
}

export function deletedNotice(name: string): string {
  return `“${name}” was deleted.`;
}

export function alreadyDeletedNotice(name: string): string {
  return `“${name}” was already deleted.`;
}

/** The error pages of a delete: the API keeps its terse "Forbidden" / "File not found". */
export const DELETE_NOT_YOURS = 'You can only delete your own files.';
export const DELETE_NOT_FOUND = 'This file does not exist, or it was already deleted.';

/** A collection's delete, refused as not there (another account's is not found either). */
export const COLLECTION_DELETE_NOT_FOUND = 'This collection does not exist, or it was already deleted.';
