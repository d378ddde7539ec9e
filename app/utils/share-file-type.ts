// What a shared file is, in words for the person it was sent to ("PNG image", "TypeScript
// source"), and which source language its preview is coloured as. Decided from its name and its
// stored type only: nothing here reads the file.

/** A source language the share page colours: its highlight.js name and what the page calls the file. */
interface SourceLanguage {
  language: string;
  words: string;
}

const source = (language: string, words: string): SourceLanguage => ({ language, words });

const SOURCE_BY_EXTENSION: Record<string, SourceLanguage> = {
  ts: source('typescript', 'TypeScript source'),
  tsx: source('typescript', 'TypeScript source'),
  mts: source('typescript', 'TypeScript source'),
  cts: source('typescript', 'TypeScript source'),
  js: source('javascript', 'JavaScript source'),
  mjs: source('javascript', 'JavaScript source'),
  cjs: source('javascript', 'JavaScript source'),
  jsx: source('javascript', 'JavaScript source'),
  py: source('python', 'Python source'),
  go: source('go', 'Go source'),
  rs: source('rust', 'Rust source'),
  java: source('java', 'Java source'),
  kt: source('kotlin', 'Kotlin source'),
  kts: source('kotlin', 'Kotlin script'),
  c: source('c', 'C source'),
  h: source('c', 'C header'),
  cpp: source('cpp', 'C++ source'),
  cc: source('cpp', 'C++ source'),
  cxx: source('cpp', 'C++ source'),
  hpp: source('cpp', 'C++ header'),
  hh: source('cpp', 'C++ header'),
  cs: source('csharp', 'C# source'),
  rb: source('ruby', 'Ruby source'),
  php: source('php', 'PHP source'),
  swift: source('swift', 'Swift source'),
  lua: source('lua', 'Lua source'),
  pl: source('perl', 'Perl source'),
  sh: source('bash', 'Shell script'),
  bash: source('bash', 'Shell script'),
  zsh: source('bash', 'Shell script'),
  json: source('json', 'JSON data'),
  yaml: source('yaml', 'YAML data'),
  yml: source('yaml', 'YAML data'),
  toml: source('ini', 'TOML settings'),
  ini: source('ini', 'INI settings'),
  html: source('xml', 'HTML document'),
  htm: source('xml', 'HTML document'),
  xml: source('xml', 'XML document'),
  css: source('css', 'CSS stylesheet'),
  scss: source('scss', 'SCSS stylesheet'),
  md: source('markdown', 'Markdown text'),
  markdown: source('markdown', 'Markdown text'),
  sql: source('sql', 'SQL script'),
  diff: source('diff', 'Patch'),
  patch: source('diff', 'Patch'),
  dockerfile: source('dockerfile', 'Dockerfile'),
};

/** Files known by their whole name rather than an extension. */
const SOURCE_BY_NAME: Record<string, SourceLanguage> = {
  dockerfile: source('dockerfile', 'Dockerfile'),
  containerfile: source('dockerfile', 'Dockerfile'),
  makefile: source('makefile', 'Makefile'),
  gnumakefile: source('makefile', 'Makefile'),
};

/** Text types whose name says nothing (no extension) but whose type names the language. */
const LANGUAGE_BY_TYPE: Record<string, string> = {
  'application/json': 'json',
  'application/x-ndjson': 'json',
  'application/yaml': 'yaml',
  'application/x-yaml': 'yaml',
  'text/yaml': 'yaml',
  'text/markdown': 'markdown',
  'text/css': 'css',
  'text/x-python': 'python',
  'text/x-c': 'c',
  'text/x-java-source': 'java',
  'application/sql': 'sql',
  'application/x-sh': 'bash',
};

const TYPE_WORDS: Record<string, string> = {
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'image/avif': 'AVIF image',
  'image/svg+xml': 'SVG image',
  'image/tiff': 'TIFF image',
  'image/heic': 'HEIC image',
  'image/heif': 'HEIF image',
  'image/bmp': 'BMP image',
  'image/x-icon': 'Icon',
  'image/vnd.microsoft.icon': 'Icon',
  'video/mp4': 'MP4 video',
  'video/webm': 'WebM video',
  'video/ogg': 'Ogg video',
  'video/quicktime': 'QuickTime video',
  'video/x-matroska': 'Matroska video',
  // The names file-type gives them, from their first bytes (ADR 0064).
  'video/matroska': 'Matroska video',
  'video/x-msvideo': 'AVI video',
  'video/vnd.avi': 'AVI video',
  'audio/mpeg': 'MP3 audio',
  'audio/ogg': 'Ogg audio',
  'audio/wav': 'WAV audio',
  'audio/x-wav': 'WAV audio',
  'audio/webm': 'WebM audio',
  'audio/flac': 'FLAC audio',
  'audio/aac': 'AAC audio',
  'audio/mp4': 'MPEG-4 audio',
  'audio/x-m4a': 'MPEG-4 audio',
  'application/pdf': 'PDF document',
  'text/plain': 'Plain text',
  'text/csv': 'CSV table',
  'text/markdown': 'Markdown text',
  'text/html': 'HTML document',
  'text/css': 'CSS stylesheet',
  'text/javascript': 'JavaScript source',
  'text/calendar': 'Calendar',
  'text/vcard': 'Contact card',
  'application/json': 'JSON data',
  'application/xml': 'XML document',
  'text/xml': 'XML document',
  'application/zip': 'ZIP archive',
  'application/x-zip-compressed': 'ZIP archive',
  'application/gzip': 'Gzip archive',
  'application/x-gzip': 'Gzip archive',
  'application/x-tar': 'Tar archive',
  'application/x-7z-compressed': '7-Zip archive',
  'application/vnd.rar': 'RAR archive',
  'application/x-rar-compressed': 'RAR archive',
  'application/epub+zip': 'EPUB book',
  'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.ms-excel': 'Excel spreadsheet',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel spreadsheet',
  'application/vnd.ms-powerpoint': 'PowerPoint presentation',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint presentation',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text',
  'application/vnd.oasis.opendocument.spreadsheet': 'OpenDocument spreadsheet',
  'application/vnd.oasis.opendocument.presentation': 'OpenDocument presentation',
  'application/x-sh': 'Shell script',
  'application/sql': 'SQL script',
  'font/woff2': 'WOFF2 font',
  'font/woff': 'WOFF font',
  'font/ttf': 'TrueType font',
  'font/otf': 'OpenType font',
};

/** What a whole type family is called when its exact type is not in the table. */
const FAMILY_WORDS: Record<string, string> = {
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  text: 'Text',
  font: 'Font',
};

/** The part of a name after its last dot, lower case: "" for none, a dot file, or a dot at the end. */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 || dot === name.length - 1 ? '' : name.slice(dot + 1).toLowerCase();
}

function sourceOf(name: string): SourceLanguage | undefined {
  const lower = name.toLowerCase();
  return SOURCE_BY_NAME[lower] ?? SOURCE_BY_EXTENSION[extensionOf(lower)];
}

/**
 * The highlight.js language a text preview of this file is coloured as: by its name first (a
 * browser sends `video/mp2t` for a `.ts` file, nothing for a `.go` one), then by its type; null
 * for text with no language (plain text, CSV, a log).
 */
export function sourceLanguageOf(name: string, mimeType: string): string | null {
  return sourceOf(name)?.language ?? LANGUAGE_BY_TYPE[mimeType.toLowerCase()] ?? null;
}

/**
 * The file's type in words: "TypeScript source", "PNG image", "ZIP archive"; else its extension
 * ("WEBM file") or its family ("Image"), else "File". `binary` says its content was read and is
 * not text: a `.ts` file that is a video is then called by its type, not "TypeScript source".
 */
export function fileTypeInWords(name: string, mimeType: string, binary = false): string {
  const named = binary ? undefined : sourceOf(name);
  if (named) return named.words;
  const type = mimeType.toLowerCase();
  const words = TYPE_WORDS[type];
  if (words) return words;
  const extension = extensionOf(name);
  if (/^[a-z0-9]{1,8}$/.test(extension)) return `${extension.toUpperCase()} file`;
  return FAMILY_WORDS[type.split('/')[0]] ?? 'File';
}
