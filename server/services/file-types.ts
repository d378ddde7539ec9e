// A file's type is found, not taken (ADR 0064): read from its first bytes (file-type's signatures,
// and whether they are UTF-8 text) and its name (the `mime-types` table, and the source-code
// names below). What the client sent is kept only where those agree with it. The same rules for
// every upload: multipart (the first bytes the store saw) and resumable (read back at the end).
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';
import { charset, extensions as EXTENSIONS_OF_TYPE, lookup } from 'mime-types';

const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const UNKNOWN_TYPE = 'application/octet-stream';
const PLAIN_TEXT = 'text/plain';

/** A type as stored: bare (no parameters), lower case; null when it is not a well-formed type/subtype. */
function bareType(type: string | null | undefined): string | null {
  const bare = (type ?? '').split(';')[0].trim().toLowerCase();
  return MIME_TYPE.test(bare) ? bare : null;
}

/** What a type claim says: nothing when it is missing, malformed or octet-stream ("some bytes"). */
function claim(type: string | null | undefined): string | null {
  const bare = bareType(type);
  return bare === UNKNOWN_TYPE ? null : bare;
}

/**
 * The type a resumable upload records when it is created, before any byte: the one the client
 * sent (cleaned), or its name's, or octet-stream. It is that upload's claim when it finishes.
 */
export function declaredFileType(name: string, declared: string | null | undefined): string {
  if (declared && declared.trim() !== '') return bareType(declared) ?? UNKNOWN_TYPE;
  return lookup(name) || UNKNOWN_TYPE;
}

// ---------------------------------------------------------------------------- source code

const TYPESCRIPT = 'text/x-typescript';
const SHELL = 'application/x-sh';

/**
 * Source code by extension, where the `mime-types` table has no type or one for another format
 * (`.ts` is an MPEG transport stream there, `.rs` an XML format, `.bat` a Windows program).
 * Used only for text: a `.ts` whose bytes are a transport stream keeps its signature's type.
 */
const SOURCE_BY_EXTENSION: Readonly<Record<string, string>> = {
  ts: TYPESCRIPT,
  tsx: TYPESCRIPT,
  mts: TYPESCRIPT,
  cts: TYPESCRIPT,
  py: 'text/x-python',
  pyi: 'text/x-python',
  go: 'text/x-go',
  rs: 'text/x-rust',
  rb: 'text/x-ruby',
  kt: 'text/x-kotlin',
  kts: 'text/x-kotlin',
  swift: 'text/x-swift',
  cs: 'text/x-csharp',
  fs: 'text/x-fsharp',
  php: 'text/x-php',
  pl: 'text/x-perl',
  pm: 'text/x-perl',
  scala: 'text/x-scala',
  dart: 'text/x-dart',
  ex: 'text/x-elixir',
  exs: 'text/x-elixir',
  erl: 'text/x-erlang',
  hs: 'text/x-haskell',
  ml: 'text/x-ocaml',
  clj: 'text/x-clojure',
  r: 'text/x-r',
  jl: 'text/x-julia',
  zig: 'text/x-zig',
  groovy: 'text/x-groovy',
  gradle: 'text/x-groovy',
  ps1: 'text/x-powershell',
  bat: 'text/x-bat',
  cmd: 'text/x-bat',
  bash: SHELL,
  zsh: SHELL,
  fish: SHELL,
  vue: 'text/x-vue',
  svelte: 'text/x-svelte',
  diff: 'text/x-diff',
  patch: 'text/x-diff',
  tf: 'text/x-hcl',
  hcl: 'text/x-hcl',
  proto: 'text/x-protobuf',
  graphql: 'text/x-graphql',
  gql: 'text/x-graphql',
  cmake: 'text/x-cmake',
  mk: 'text/x-makefile',
  dockerfile: 'text/x-dockerfile',
};

/** Source files known by their whole name. */
const SOURCE_BY_NAME: Readonly<Record<string, string>> = {
  dockerfile: 'text/x-dockerfile',
  containerfile: 'text/x-dockerfile',
  makefile: 'text/x-makefile',
  gnumakefile: 'text/x-makefile',
  jenkinsfile: 'text/x-groovy',
  rakefile: 'text/x-ruby',
  gemfile: 'text/x-ruby',
};

/**
 * The types of the list's "Code" kind (files.ts): source code, scripts, style sheets, markup and
 * the data formats programs read and people edit (JSON, YAML, TOML, XML). Prose (Markdown, plain
 * text, CSV) stays a document.
 */
export const CODE_TYPES: readonly string[] = [
  ...new Set([
    ...Object.values(SOURCE_BY_EXTENSION),
    ...Object.values(SOURCE_BY_NAME),
    'text/javascript',
    'application/javascript',
    'application/x-javascript',
    'text/jsx',
    'text/css',
    'text/x-scss',
    'text/x-sass',
    'text/less',
    'text/x-c',
    'text/x-java-source',
    'text/x-lua',
    'text/x-asm',
    'text/x-fortran',
    'text/x-pascal',
    'text/x-shellscript',
    'application/x-shellscript',
    'application/x-httpd-php',
    'application/x-perl',
    'application/sql',
    'text/html',
    'application/xhtml+xml',
    'text/xml',
    'application/xml',
    'application/json',
    'application/x-ndjson',
    'text/yaml',
    'application/yaml',
    'application/x-yaml',
    'application/toml',
  ]),
];

/** The source-code type of a name (text only, see above), or null. */
function sourceTypeOf(name: string): string | null {
  const base = (name.split(/[/\\]/).pop() ?? '').toLowerCase();
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 ? base.slice(dot + 1) : '';
  return SOURCE_BY_NAME[base] ?? SOURCE_BY_EXTENSION[extension] ?? null;
}

// ---------------------------------------------------------------------------- kinds of types

/** Text formats outside `text/*` whose `mime-types` entry names no charset. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/xml',
  'application/x-sh',
  'application/x-shellscript',
  'application/sql',
  'application/toml',
  'application/yaml',
  'application/x-yaml',
  'application/x-ndjson',
  'application/x-httpd-php',
  'application/x-perl',
  'application/x-tex',
  'application/x-latex',
  'application/x-subrip',
  'application/rtf',
  'application/postscript',
  'application/pgp-encrypted',
  'application/x-ms-regedit',
]);

/** Whether a type is a text format: what UTF-8 text may be. */
function isTextFormat(type: string): boolean {
  return (
    type.startsWith('text/') ||
    /\+(xml|json)$/.test(type) ||
    TEXT_APPLICATION_TYPES.has(type) ||
    charset(type) === 'UTF-8'
  );
}

/** The binary formats file-type knows by their signature. */
const SIGNATURE_TYPES = new Set(
  [...supportedMimeTypes].map((type) => bareType(type)).filter((type): type is string => type !== null),
);
/** Formats whose signature lies past the first bytes read (an ISO image's, at 32 KiB). */
const FAR_SIGNATURE_TYPES = new Set(['application/x-iso9660-image']);
/** The extensions of the formats with a signature (an `.exe` is one, whichever name its type goes by). */
const SIGNATURE_EXTENSIONS = new Set(
  [...SIGNATURE_TYPES]
    .filter((type) => !FAR_SIGNATURE_TYPES.has(type))
    .flatMap((type) => EXTENSIONS_OF_TYPE[type] ?? []),
);

/** Media: a type the share page plays or shows, whose bytes always begin with their signature. */
function isMedia(type: string): boolean {
  return !isTextFormat(type) && (/^(image|audio|video)\//.test(type) || type === 'application/pdf');
}

/**
 * Whether bytes without a known signature cannot be of this format, its signature would have
 * been found: media, and the formats file-type knows, by any of their names.
 */
function hasKnownSignature(type: string): boolean {
  if (isMedia(type) || (SIGNATURE_TYPES.has(type) && !FAR_SIGNATURE_TYPES.has(type))) return true;
  return (EXTENSIONS_OF_TYPE[type] ?? []).some((extension) => SIGNATURE_EXTENSIONS.has(extension));
}

/** Whether a type is a binary format: what text can never be. */
function isBinaryFormat(type: string): boolean {
  return !isTextFormat(type) && (hasKnownSignature(type) || /^(font|model)\//.test(type));
}

/** Two names of one format: the same type, or two that the `mime-types` table gives a same extension. */
function sameFormat(a: string, b: string): boolean {
  if (a === b) return true;
  const ofB = new Set(EXTENSIONS_OF_TYPE[b] ?? []);
  return (EXTENSIONS_OF_TYPE[a] ?? []).some((extension) => ofB.has(extension));
}

/** Containers whose signature is that of many formats (a `.docx` is a ZIP, a `.doc` a CFB file). */
const CONTAINER_TYPES = new Set(['application/zip', 'application/x-cfb']);

/** A more exact name of a container's format: a document or package, never text, media or octet-stream. */
function refinesContainer(container: string, type: string): boolean {
  return CONTAINER_TYPES.has(container) && type.startsWith('application/') && !isTextFormat(type) && !isMedia(type);
}

// ---------------------------------------------------------------------------- the bytes

/**
 * Control bytes text never holds: everything below a space but BEL, BS, tab, LF, VT, FF, CR and
 * ESC (what file(1) counts as text), and DEL. A NUL is the mark of a binary file.
 */
function hasBinaryControls(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x7f || (byte < 0x20 && !(byte >= 0x07 && byte <= 0x0d) && byte !== 0x1b)) return true;
  }
  return false;
}

/**
 * Whether the bytes are UTF-8: `whole` says they are all of the content; otherwise they may end
 * in the middle of a character (the rest of it follows), which the decoder holds back.
 */
function isUtf8(bytes: Uint8Array, whole: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !whole });
    return true;
  } catch {
    return false;
  }
}

export interface FirstBytesOfFile {
  /** The name as stored (cleaned). */
  name: string;
  /** The type the client sent, if any (a part's Content-Type, a resumable upload's filetype). */
  declared: string | null | undefined;
  /** The content's first bytes (4 KiB, FIRST_BYTES_KEPT), or all of it when shorter. */
  firstBytes: Uint8Array;
  /** Whether `firstBytes` is the whole content. */
  whole: boolean;
}

/**
 * The type a file is stored with (ADR 0064). Claims (the name's type, then the client's) are
 * checked against the bytes, and the first that the bytes do not contradict wins:
 * - a known binary signature (file-type) wins, unless a claim is another name of its format or a
 *   more exact one of a container (a `.docx` is a ZIP); a PNG named `.txt` is an image;
 * - UTF-8 text without binary control bytes is text: source code by its name, else the name's text
 *   type (or the client's, where the table gives it the same extension), else any claim that is
 *   not a binary format, else text/plain. A binary signature in text counts only where a claim
 *   says the same (a PDF may be all ASCII; text may begin with "MZ" or "BM");
 * - other bytes keep a claim that is neither a text format nor a format with a signature file-type
 *   knows (it would have been found: random bytes named `.png` or `.exe` are neither), else
 *   octet-stream; text in another encoding (no control bytes) keeps a text claim.
 * Empty content says nothing: the name's type, else the client's, else octet-stream.
 * Markup and script are never made up from the bytes: HTML or XML content without such a name or
 * claim is text/plain (shown as text, never rendered), and a name or claim of an active type keeps
 * it (only ever downloaded, content-policy.ts).
 */
export async function fileTypeOf({ name, declared, firstBytes, whole }: FirstBytesOfFile): Promise<string> {
  const named = claim(lookup(name) || null);
  const sent = claim(declared);
  const claims = [named, sent].filter((type): type is string => type !== null);
  if (firstBytes.length === 0) return claims[0] ?? UNKNOWN_TYPE;
  const found = await signatureOf(firstBytes);
  const controls = hasBinaryControls(firstBytes);
  if (!controls && isUtf8(firstBytes, whole)) return textType(name, named, sent, found);
  if (found) return claims.find((type) => sameFormat(type, found) || refinesContainer(found, type)) ?? found;
  return claims.find((type) => !hasKnownSignature(type) && !(controls && isTextFormat(type))) ?? UNKNOWN_TYPE;
}

/** The type file-type reads from the bytes' signature; null for none (or bytes its parsers choke on). */
async function signatureOf(bytes: Uint8Array): Promise<string | null> {
  try {
    return bareType((await fileTypeFromBuffer(bytes))?.mime);
  } catch {
    return null;
  }
}

/** The type of UTF-8 text (see fileTypeOf). */
function textType(name: string, named: string | null, sent: string | null, found: string | null): string {
  const claims = [named, sent].filter((type): type is string => type !== null);
  if (found && isBinaryFormat(found)) {
    const agreeing = claims.find((type) => sameFormat(type, found));
    if (agreeing) return agreeing;
  }
  const source = sourceTypeOf(name);
  if (source) return source;
  if (named && isTextFormat(named)) return sent && isTextFormat(sent) && sameFormat(sent, named) ? sent : named;
  const kept = claims.find((type) => !isBinaryFormat(type));
  if (kept) return kept;
  // A text format known by its first line (BEGIN:VCARD, WEBVTT), but never XML: markup a
  // browser would render is never made up from the bytes.
  if (found && !isBinaryFormat(found) && found !== 'application/xml') return found;
  return PLAIN_TEXT;
}
