// What libvips (sharp) holds in memory to make a thumbnail of an image, estimated from its header
// before a pixel is decoded (ADR 0061). A pixel count alone does not bound it: libvips reads a
// PNG or a baseline JPEG a band of rows at a time, but an interlaced PNG, a progressive JPEG, a
// lossless WebP, a GIF, an AVIF and a TIFF (one strip may be all of it) are decoded whole, some
// at several bytes a pixel. Each rule below is an upper bound on what was measured, peak RSS minus
// RSS before, making one thumbnail with sharp 0.34 (one libvips thread, no cache, ADR 0061).
import type { Metadata } from 'sharp';

/** The header fields the estimate reads (sharp's `metadata()`). */
export type ImageHeader = Pick<
  Metadata,
  'format' | 'width' | 'height' | 'channels' | 'depth' | 'isProgressive' | 'chromaSubsampling'
>;

/**
 * Rows of the full width that libvips holds while it shrinks an image read top to bottom (its
 * line caches, and the rows a band of the thumbnail is averaged from): measured up to 1,830
 * (1000 × 100000 pixels), fewer for wide images (800 for 50000 × 2000).
 */
const ROWS_HELD = 2000;

/** Bytes per sample of each libvips band format. */
const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

/** Bytes libvips is expected to hold at most while it makes the thumbnail of an image with this header. */
export function thumbnailMemory(header: ImageHeader, thumbnailPixels: number): number {
  const width = header.width ?? 0;
  const pixels = width * (header.height ?? 0);
  const channels = header.channels ?? 4;
  const pixelBytes = channels * (SAMPLE_BYTES[header.depth] ?? 8);
  const rows = (rowWidth: number) => rowWidth * pixelBytes * ROWS_HELD;
  switch (header.format) {
    case 'jpeg': {
      // libjpeg decodes at 1/2, 1/4 or 1/8 of the size where the thumbnail allows (sharp's
      // shrink-on-load): a 48 MP photo held 4 MB. A progressive JPEG also keeps every DCT
      // coefficient, two bytes per sample: that 48 MP photo saved progressive held 142 MB.
      const scaled = rows(Math.ceil(width / shrinkOnLoad(header, thumbnailPixels)));
      if (!header.isProgressive) return scaled;
      const samplesPerPixel = header.chromaSubsampling === '4:2:0' ? 1.5 : channels;
      return pixels * samplesPerPixel * 2 + scaled;
    }
    case 'png':
      // Read row by row (10000 × 10000 at 16 bits: 100 MB), unless interlaced: then whole first
      // (the same image interlaced: 640 MB).
      return header.isProgressive ? pixels * pixelBytes + rows(width) : rows(width);
    case 'svg':
      // Drawn at the thumbnail's size.
      return rows(thumbnailPixels);
    case 'webp':
      // A lossless WebP is decoded whole to 4 bytes a pixel (96 MP: 367 MB); the header does
      // not tell it from a lossy one, which shrinks on load.
      return pixels * 4 + rows(width);
    case 'gif':
      // The frame is decoded whole, 4 bytes a pixel (24 MP: 121 MB).
      return pixels * 4 + rows(width);
    case 'heif':
      // libheif and dav1d hold 15–21 bytes a pixel for an 8-bit RGB AVIF (12 MP: 174–236 MB).
      return pixels * pixelBytes * 7;
    default:
      // TIFF (one strip may be the whole image) and anything else libvips reads: decoded whole.
      return pixels * pixelBytes + rows(width);
  }
}

/** The factor libjpeg scales by while it decodes, as sharp chooses it for a thumbnail that fits the square. */
function shrinkOnLoad(header: ImageHeader, thumbnailPixels: number): number {
  const shrink = Math.max(header.width ?? 0, header.height ?? 0) / thumbnailPixels;
  // sharp halves its choice where the shrink is just that factor (libjpeg's rounding), so
  // 8 is sure only from 16 on.
  if (shrink >= 16) return 8;
  if (shrink >= 8) return 4;
  if (shrink >= 4) return 2;
  return 1;
}
