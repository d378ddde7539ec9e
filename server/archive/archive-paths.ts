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
 */
export function distinctArchiveNames(paths: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const path of paths) {
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) folders.add(comparable(segments.slice(0, i).join('/')));
  }
  // Every path as given is reserved, so that a generated name never takes a later entry's own.
  const reserved = new Set(paths.map(comparable));
  const taken = new Set<string>();
  return paths.map((path) => {
    const key = comparable(path);
    if (!taken.has(key) && !folders.has(key)) {
      taken.add(key);
      return path;
    }
    const slash = path.lastIndexOf('/');
    const folder = path.slice(0, slash + 1);
    const { stem, extension } = splitExtension(path.slice(slash + 1));
    for (let n = 2; ; n++) {
      const candidate = folder + fitSegment(stem, ` (${n})${extension}`);
      const candidateKey = comparable(candidate);
      if (taken.has(candidateKey) || reserved.has(candidateKey) || folders.has(candidateKey)) continue;
      taken.add(candidateKey);
      return candidate;
    }
  });
}

/** How case-insensitive file systems compare names: case folded, one Unicode form. */
function comparable(path: string): string {
  return path.toUpperCase().toLowerCase().normalize('NFKC');
}

function splitExtension(name: string): { stem: string; extension: string } {
  const dot = name.lastIndexOf('.');
  // A leading dot starts a hidden file's name (".env"), not an extension.
  if (dot <= 0) return { stem: name, extension: '' };
  return { stem: name.slice(0, dot), extension: name.slice(dot) };
}

/** `stem + suffix`, the stem shortened (whole code points) so the name stays within the limit. */
function fitSegment(stem: string, suffix: string): string {
  const room = MAX_ARCHIVE_SEGMENT_BYTES - Buffer.byteLength(suffix);
  const codePoints = Array.from(stem);
  while (codePoints.length > 0 && Buffer.byteLength(codePoints.join('')) > room) codePoints.pop();
  return codePoints.join('') + suffix;
}
