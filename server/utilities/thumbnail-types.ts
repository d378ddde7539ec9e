// The image types that get a thumbnail: the types libvips reads (HEIC only where its build
// decodes it); SVG is rendered to pixels. One set for the thumbnails (services/thumbnails.ts)
// and the share page, whose link preview shows the thumbnail of these types and no other.
// Pure: the browser bundle may take it (.dependency-cruiser.cjs).
export const THUMBNAIL_IMAGE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/avif',
  'image/gif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/svg+xml',
]);
