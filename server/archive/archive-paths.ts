// The names of a ZIP archive's entries: relative paths that stay inside the folder the archive is
// extracted into, whatever the extracting system (ADR 0036). Pure functions, no I/O.

/** The longest path, in UTF-8 bytes: well within every extractor's and file system's limit. */
const MAX_ARCHIVE_PATH_BYTES = 1024;
/** The longest folder or file name within a path, in UTF-8 bytes (the common file systems' limit). */
const MAX_ARCHIVE_SEGMENT_BYTES = 255;

export type ArchivePathResult = { ok: true; path: string } | { ok: false; message: string };

// C0 controls (NUL included), DEL and C1 controls, and the bidirectional overrides and isolates
// that make a name read differently from what it is ("evil\u202Egpj.exe").
const FORBIDDEN_CHARACTER = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;
const DRIVE_LETTER = /^[A-Za-z]:/;
// A segment made only of dots and spaces: Windows drops trailing dots and spaces from names, so
// ".. " or "..." can become "..".
const DOTS_AND_SPACES = /^[. ]+$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Normalises a user-given relative path (`photos/2026/beach.jpg`) into an entry name, or says
 * why it cannot be one. A backslash counts as a separator (Windows extractors treat it as one),
 * and the name is put in Unicode NFC (one spelling for "é"). Everything that could leave the
 * extraction folder or name nothing is refused: absolute paths, drive letters, `..`, `.` and
 * empty segments, control characters, and paths or names past the length limits.
 */
export function normaliseArchivePath(input: string): ArchivePathResult {
  if (input.length === 0) return refuse('The path is empty.');
  if (LONE_SURROGATE.test(input)) return refuse('The path is not valid Unicode text.');
  const path = input.normalize('NFC').replaceAll('\\', '/');
  if (FORBIDDEN_CHARACTER.test(path)) return refuse('The path contains a control character.');
  if (path.startsWith('/')) return refuse('The path must be relative: it may not start with "/" or "\\".');
  if (DRIVE_LETTER.test(path)) return refuse('The path must be relative: it may not start with a drive letter.');
  if (Buffer.byteLength(path) > MAX_ARCHIVE_PATH_BYTES)
    return refuse(`The path is longer than ${MAX_ARCHIVE_PATH_BYTES} bytes.`);
  for (const segment of path.split('/')) {
    if (segment === '') return refuse('The path has an empty folder name ("//", or a "/" at the end).');
    if (segment === '..') return refuse('The path may not contain "..": entries stay inside their folder.');
    if (segment === '.') return refuse('The path may not contain "." as a folder name.');
    // Judged in compatibility form too: an extractor on Windows may map a fullwidth dot to a dot.
    if (DOTS_AND_SPACES.test(segment.normalize('NFKC')))
      return refuse('The path has a name made only of dots and spaces.');
    if (Buffer.byteLength(segment) > MAX_ARCHIVE_SEGMENT_BYTES)
      return refuse(`The path has a name longer than ${MAX_ARCHIVE_SEGMENT_BYTES} bytes.`);
  }
  return { ok: true, path };
}

function refuse(message: string): ArchivePathResult {
  return { ok: false, message };
}

/**
 * Gives each of the (normalised) entry paths a name no other entry has, comparing as the
 * case-insensitive file systems of Windows and macOS do. The first path of a kind keeps its
 * name, and so does every path that is unique; a later duplicate becomes `beach (2).jpg`,
 * `beach (3).jpg`, … (the first number free among all the names). A file whose path is also a
 * folder of another entry (`a` and `a/b.txt`) is renamed the same way, as the folder cannot be
 * both. Deterministic: the same list always gives the same names, in the same order.
 *
 * Linear in the paths' total length, however many of them are alike (10,000 files of one name:
 * tests/unit/zip-paths.test.ts): each numbering of a name remembers how far it has counted, so
 * no number is tried twice, and names are compared part by part in a tree, so no folder's path
 * is compared again for each of its files.
 */
export function distinctArchiveNames(paths: readonly string[]): string[] {
  const namer = new ArchiveNamer();
  for (const path of paths) namer.reserve(path);
  return paths.map(() => namer.nameNext());
}

/**
 * distinctArchiveNames a step at a time, for a caller with thousands of paths that lets other
 * work run between the steps (ADR 0055): every path is reserved first, in order, then each is
 * given its name, in the same order.
 */
export class ArchiveNamer {
  private readonly tree = new NameTree();
  private readonly paths: Array<{ path: string; node: number; folderNode: number }> = [];
  // Every path as given is reserved, so that a generated name never takes a later entry's own.
  private readonly reserved = new Set<number>();
  private readonly taken = new Set<number>();
  // Per numbering (a folder, a comparable name, a count of digits): every number below this one is occupied.
  private readonly nextNumber = new Map<string, number>();
  private readonly numberings = new Map<string, Numbering>();
  private named = 0;

  reserve(path: string): void {
    if (this.named > 0) throw new Error('Every path is reserved before the first is named.');
    const placed = this.tree.place(path);
    this.paths.push({ path, ...placed });
    this.reserved.add(placed.node);
  }

  /** The name of the next path, in the order they were reserved. */
  nameNext(): string {
    const next = this.paths[this.named];
    if (!next) throw new Error('Every path reserved has its name.');
    this.named += 1;
    const { path, node, folderNode } = next;
    if (!this.taken.has(node) && !this.tree.isFolder(node)) {
      this.taken.add(node);
      return path;
    }
    let numbering = this.numberings.get(path);
    if (!numbering) {
      numbering = new Numbering(path, folderNode);
      this.numberings.set(path, numbering);
    }
    for (let digits = 1; ; digits++) {
      const form = numbering.withDigits(digits);
      const last = 10 ** digits - 1;
      let n = this.nextNumber.get(form.key) ?? Math.max(2, 10 ** (digits - 1));
      let found = this.tree.find(folderNode, form.head + n + form.tail);
      while (n <= last && this.occupied(found)) {
        n++;
        found = this.tree.find(folderNode, form.head + n + form.tail);
      }
      this.nextNumber.set(form.key, Math.min(n + 1, last + 1));
      if (n > last) continue;
      this.taken.add(found ?? this.tree.add(folderNode, form.head + n + form.tail));
      return numbering.folder + form.prefix + n + form.suffix;
    }
  }

  private occupied(node: number | undefined): boolean {
    return node !== undefined && (this.taken.has(node) || this.reserved.has(node) || this.tree.isFolder(node));
  }
}

/** How case-insensitive file systems compare names: case folded, one Unicode form. */
function comparable(path: string): string {
  // Printable ASCII (most names) has only case to fold: the same result, without the slower steps.
  if (PRINTABLE_ASCII.test(path)) return path.toLowerCase();
  return path.toUpperCase().toLowerCase().normalize('NFKC');
}

const PRINTABLE_ASCII = /^[ -~]*$/;

const ROOT = 0;

/**
 * Comparable paths as a tree of their `/`-separated parts: two paths that compare equal are the
 * same node. The comparable form of a path is that of each of its names joined by `/` (a `/` ends
 * every case and composition rule), and a name may itself compare with a `/` in it (a fullwidth
 * solidus, U+FF0F, becomes one), so parts are split on the comparable form, not on the path.
 */
class NameTree {
  private readonly children = new Map<string, number>();
  private readonly folders = new Set<number>();
  private nodes = 1;

  /** The node of `path` (added), and that of its folder (the root for none); its folders are marked as such. */
  place(path: string): { node: number; folderNode: number } {
    let node = ROOT;
    let folderNode = ROOT;
    for (const [index, name] of path.split('/').entries()) {
      if (index > 0) {
        this.folders.add(node);
        folderNode = node;
      }
      node = this.add(node, comparable(name));
    }
    return { node, folderNode };
  }

  /** The node of `comparablePath` below `from`, added if new. */
  add(from: number, comparablePath: string): number {
    let node = from;
    for (const part of comparablePath.split('/')) {
      const key = `${node}/${part}`;
      let child = this.children.get(key);
      if (child === undefined) {
        child = this.nodes++;
        this.children.set(key, child);
      }
      node = child;
    }
    return node;
  }

  /** The node of `comparablePath` below `from`; undefined when no path has it (so it is free). */
  find(from: number, comparablePath: string): number | undefined {
    let node: number | undefined = from;
    for (const part of comparablePath.split('/')) {
      node = this.children.get(`${node}/${part}`);
      if (node === undefined) return undefined;
    }
    return node;
  }

  isFolder(node: number): boolean {
    return this.folders.has(node);
  }
}

/**
 * The numbered names of one count of digits, `beach (` + number + `).jpg`: what surrounds the
 * number, as it is written and in comparable form (digits between `(` and `)` compare as
 * themselves, and nothing on either side of them changes with them).
 */
interface NumberedForm {
  /** Equal for two paths whose numbered names compare equal for every number of these digits. */
  key: string;
  prefix: string;
  suffix: string;
  head: string;
  tail: string;
}

/** The numbered names of one path: `photos/beach (2).jpg`, the stem shortened to fit where needed. */
class Numbering {
  readonly folder: string;
  private readonly stem: string;
  private readonly suffix: string;
  private readonly tail: string;
  private readonly forms: NumberedForm[] = [];

  constructor(
    path: string,
    private readonly folderNode: number,
  ) {
    const slash = path.lastIndexOf('/');
    this.folder = path.slice(0, slash + 1);
    const { stem, extension } = splitExtension(path.slice(slash + 1));
    this.stem = stem;
    this.suffix = `)${extension}`;
    this.tail = comparable(this.suffix);
  }

  withDigits(digits: number): NumberedForm {
    const known = this.forms[digits];
    if (known) return known;
    // The stem shortened (whole code points) so that the name stays within MAX_ARCHIVE_SEGMENT_BYTES.
    const room = MAX_ARCHIVE_SEGMENT_BYTES - 2 - digits - Buffer.byteLength(this.suffix);
    const prefix = `${withinBytes(this.stem, room)} (`;
    // The comparable form is the same for every count of digits that leaves the stem whole.
    const previous = this.forms[digits - 1];
    const head = previous?.prefix === prefix ? previous.head : comparable(prefix);
    const form = {
      key: `${this.folderNode}/${digits}/${head.length}/${head}${this.tail}`,
      prefix,
      suffix: this.suffix,
      head,
      tail: this.tail,
    };
    this.forms[digits] = form;
    return form;
  }
}

function splitExtension(name: string): { stem: string; extension: string } {
  const dot = name.lastIndexOf('.');
  // A leading dot starts a hidden file's name (".env"), not an extension.
  if (dot <= 0) return { stem: name, extension: '' };
  return { stem: name.slice(0, dot), extension: name.slice(dot) };
}

/** The longest start of `text`, in whole code points, of at most `maxBytes` UTF-8 bytes. */
function withinBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  // One byte a character: ASCII.
  if (bytes === text.length) return text.slice(0, Math.max(maxBytes, 0));
  let kept = 0;
  let end = 0;
  for (const codePoint of text) {
    const size = Buffer.byteLength(codePoint);
    if (kept + size > maxBytes) break;
    kept += size;
    end += codePoint.length;
  }
  return text.slice(0, end);
}
