// Which content a browser may render on our origin (CONTRACT §5, OWASP File Upload).
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

export type PreviewKind = 'image' | 'video' | 'audio' | 'text' | 'pdf' | 'none';

/** How the share page previews a file; only inline-safe types get a preview. */
export function previewKind(mimeType: string): PreviewKind {
  if (!isInlineSafe(mimeType)) return 'none';
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType === 'application/pdf') return 'pdf';
  return 'text';
}
