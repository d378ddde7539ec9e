// The picture of a file that has no thumbnail (ADR 0046): one small inline SVG per kind of file,
// drawn in the text colour (so it follows dark mode) and asking nothing of the network.

export type FileKind = 'image' | 'video' | 'audio' | 'document' | 'archive' | 'other';

const DOCUMENT_TYPES = new Set([
  'application/pdf',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/epub+zip',
  'application/json',
  'application/xml',
]);

const ARCHIVE_TYPES = new Set([
  'application/zip',
  'application/x-zip-compressed',
  'application/gzip',
  'application/x-gzip',
  'application/x-tar',
  'application/x-bzip2',
  'application/x-xz',
  'application/x-7z-compressed',
  'application/x-rar-compressed',
  'application/vnd.rar',
  'application/zstd',
]);

/** The kind of a file by its MIME type, as its icon shows it. */
export function fileKind(mimeType: string): FileKind {
  const type = mimeType.toLowerCase().split(';')[0].trim();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (ARCHIVE_TYPES.has(type)) return 'archive';
  if (
    type.startsWith('text/') ||
    DOCUMENT_TYPES.has(type) ||
    type.startsWith('application/vnd.openxmlformats-officedocument.') ||
    type.startsWith('application/vnd.oasis.opendocument.')
  )
    return 'document';
  return 'other';
}

/** What each kind is called, for the icon's title. */
const KIND_NAMES: Record<FileKind, string> = {
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  archive: 'Archive',
  other: 'File',
};

/** The lines drawn inside the page outline of each kind (24 × 24 view box). */
function KindMark({ kind }: { kind: FileKind }) {
  switch (kind) {
    case 'image':
      return (
        <>
          <circle cx="10" cy="12" r="1.5" />
          <path d="M7 18l3.5-3.5 2 2 2.5-3 2 4.5z" />
        </>
      );
    case 'video':
      return <path d="M10 11v6l5-3z" />;
    case 'audio':
      return (
        <>
          <path d="M11 17V11l5-1.5v6" />
          <circle cx="9.5" cy="17" r="1.5" />
          <circle cx="14.5" cy="15.5" r="1.5" />
        </>
      );
    case 'document':
      return <path d="M8 11h8M8 14h8M8 17h5" />;
    case 'archive':
      return <path d="M12 3v2m0 2v2m0 2v2m-1.5 0h3v4h-3z" />;
    default:
      return null;
  }
}

/** A file's icon: a page with a mark for its kind. Decorative: the name beside it says what it is. */
export function FileTypeIcon({ kind, size = 48 }: { kind: FileKind; size?: number }) {
  return (
    <span className="file-type-icon" data-kind={kind} title={KIND_NAMES[kind]}>
      <svg
        viewBox="0 0 24 24"
        width={size}
        height={size}
        aria-hidden="true"
        focusable="false"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.5"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M6 2.75h8.5l4.75 4.75v13.75H6z" />
        <path d="M14.5 2.75V7.5h4.75" />
        <KindMark kind={kind} />
      </svg>
    </span>
  );
}
