// The files a person gives the upload page, each with the path it will have in a collection:
// its name for a file chosen or dropped on its own, `photos/2026/beach.jpg` for one inside a
// chosen or dropped folder (ADR 0039).

export interface ChosenFile {
  file: File;
  /** Where the file sits in the collection, `/` between folders. */
  path: string;
}

/** Files chosen one by one (the file input, a paste): each at its name. */
export function filesAtTheirNames(files: FileList | File[]): ChosenFile[] {
  return Array.from(files, (file) => ({ file, path: file.name }));
}

/**
 * A folder's files in the order a file manager lists them: by path, numbers by their value
 * (`item-2` before `item-10`), a folder's files together. The browser lists them as the disk
 * happens to keep them.
 */
function inFolderOrder(chosen: ChosenFile[]): ChosenFile[] {
  return chosen.sort((a, b) => a.path.localeCompare(b.path, undefined, { numeric: true }));
}

/** The files of a folder input (`webkitdirectory`): each at its path under the chosen folder. */
export function filesOfFolderInput(files: FileList): ChosenFile[] {
  return inFolderOrder(Array.from(files, (file) => ({ file, path: file.webkitRelativePath || file.name })));
}

/** Whether any of the files came from inside a folder. */
export function fromAFolder(chosen: ChosenFile[]): boolean {
  return chosen.some(({ path }) => path.includes('/'));
}

/**
 * The entries of a drop, taken at once: the browser empties the drop's list of items as soon as
 * the drop event has been handled, so this must run inside the handler. Null when the browser
 * gives no entries (then the drop's plain list of files is all there is).
 */
export function entriesOfDrop(data: DataTransfer): FileSystemEntry[] | null {
  const items = Array.from(data.items ?? []).filter((item) => item.kind === 'file');
  if (items.length === 0 || typeof items[0].webkitGetAsEntry !== 'function') return null;
  const entries = items.map((item) => item.webkitGetAsEntry());
  if (entries.some((entry) => entry === null)) return null;
  return entries as FileSystemEntry[];
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a folder: the browser hands them over in batches until one comes back empty. */
async function childrenOf(folder: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = folder.createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return children;
    children.push(...batch);
  }
}

/**
 * The files of dropped entries, walking into folders: a dropped folder `photos` gives
 * `photos/2026/beach.jpg`, in the order of their paths.
 */
export async function filesOfEntries(entries: FileSystemEntry[]): Promise<ChosenFile[]> {
  const chosen: ChosenFile[] = [];
  const walk = async (entry: FileSystemEntry, folder: string): Promise<void> => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isFile) chosen.push({ file: await fileOf(entry as FileSystemFileEntry), path });
    else if (entry.isDirectory)
      for (const child of await childrenOf(entry as FileSystemDirectoryEntry)) await walk(child, path);
  };
  for (const entry of entries) await walk(entry, '');
  return inFolderOrder(chosen);
}
