// GET/HEAD /f/:id/raw — the shared content, served like a good static server: streamed,
// single byte ranges, conditional requests, and never active content inline (CONTRACT §5).
import contentDisposition from 'content-disposition';
import type { NextFunction, Request, Response } from 'express';
import fresh from 'fresh';
import parseRange from 'range-parser';
import { pipeline } from 'node:stream/promises';
import { isInlineSafe } from '../services/content-policy';
import { openSharedContent } from '../services/files';

export function rawFile() {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const shared = await openSharedContent(res.locals.ctx, req.params.id);
      // Unknown id or missing content: fall through to the not-found page.
      if (!shared) return next();
      const { file, size } = shared;

      const inline = isInlineSafe(file.mimeType) && req.query.download === undefined;
      const etag = `"${file.id}-${size.toString(36)}"`;
      const lastModified = new Date(file.createdAt).toUTCString();

      res.setHeader('Content-Type', inline ? contentTypeOf(file.mimeType) : 'application/octet-stream');
      res.setHeader('Content-Disposition', contentDisposition(file.originalName, {
        type: inline ? 'inline' : 'attachment',
        fallback: asciiFallback(file.originalName),
      }));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // A shared file may be deleted at any time: caches must check back (cheap, thanks to the ETag).
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('ETag', etag);
      res.setHeader('Last-Modified', lastModified);
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('X-Frame-Options', 'SAMEORIGIN');
      res.setHeader(
        'Content-Security-Policy',
        inline
          ? "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; object-src 'self'; frame-ancestors 'self'"
          : 'sandbox',
      );

      if (fresh(req.headers, { etag, 'last-modified': lastModified })) {
        res.status(304).end();
        return;
      }

      let range: { start: number; end: number } | undefined;
      const rangeHeader = req.headers.range;
      if (rangeHeader && ifRangeMatches(req, etag, lastModified)) {
        const parsed = parseRange(size, rangeHeader, { combine: true });
        if (parsed === -1) {
          res.setHeader('Content-Range', `bytes */${size}`);
          res.status(416).end();
          return;
        }
        // Malformed (-2) or several ranges: answer with the whole content, as RFC 9110 allows.
        if (parsed !== -2 && parsed.type === 'bytes' && parsed.length === 1) range = parsed[0];
      }

      if (range) {
        res.status(206);
        res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
        res.setHeader('Content-Length', String(range.end - range.start + 1));
      } else {
        res.status(200);
        res.setHeader('Content-Length', String(size));
      }
      if (req.method === 'HEAD' || size === 0) {
        res.end();
        return;
      }
      await pipeline(shared.open(range), res);
    } catch (error) {
      // A client that goes away mid-download is not a fault.
      if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      next(error);
    }
  };
}

function contentTypeOf(mimeType: string): string {
  return mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : mimeType;
}

/** If-Range: a range applies only to the representation the client already has. */
function ifRangeMatches(req: Request, etag: string, lastModified: string): boolean {
  const ifRange = req.headers['if-range'];
  if (!ifRange) return true;
  return ifRange.includes('"') ? ifRange === etag : ifRange === lastModified;
}

/**
 * An ASCII rendering of the name for the `filename=` fallback: accents stripped, anything
 * else non-ASCII, quotes, backslashes and controls replaced (CONTRACT §5, RFC 6266).
 */
export function asciiFallback(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, '_')
    .replace(/["\\%]/g, '_')
    .trim();
  return ascii || 'download';
}
