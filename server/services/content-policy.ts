// Which content a browser may render on our origin (OWASP File Upload; ADR 0001).
// Anything not on this list — HTML, SVG, XML, JavaScript, unknown types — is only ever
// downloaded, so an uploaded page can never run script as us.
const INLINE_SAFE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/x-wav',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/mp4',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
  'application/pdf',
  'text/plain',
]);

export function isInlineSafe(mimeType: string): boolean {
  return INLINE_SAFE_TYPES.has(mimeType.toLowerCase());
}

// Text the share page may show as escaped text even though the raw link only downloads it:
// the page renders it as text, never as markup. Markup and script types get no preview.
const TEXT_PREVIEW_TYPES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/x-yaml',
  'application/yaml',
]);
const ACTIVE_TEXT_TYPES = new Set([
  'text/html',
  'text/xml',
  'text/xsl',
  'text/javascript',
  'text/ecmascript',
  'text/x-javascript',
  'text/jscript',
  'text/livescript',
  'text/vbscript',
]);

export type PreviewKind = 'image' | 'video' | 'audio' | 'text' | 'pdf' | 'none';

/** How the share page previews a file: inline-safe media, and text that is not markup or script. */
export function previewKind(mimeType: string): PreviewKind {
  const type = mimeType.toLowerCase();
  if (type.startsWith('text/')) return ACTIVE_TEXT_TYPES.has(type) ? 'none' : 'text';
  if (TEXT_PREVIEW_TYPES.has(type)) return 'text';
  if (!isInlineSafe(type)) return 'none';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type === 'application/pdf') return 'pdf';
  return 'none';
}
