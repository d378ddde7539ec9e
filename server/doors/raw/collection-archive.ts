// "Download all" of a collection, `/c/<id>/archive`: one ZIP of its files, streamed as it is
// read, with a Content-Length and byte ranges (ADR 0036), under the collection's share controls;
// every archive sent counts, unless it is a range continuing a counted one (ADR 0056).
import type { NextFunction, Request, Response } from 'express';
import { collectionClaimCookie, readCollectionGrant, readDownloadClaim } from '../../auth/cookie';
import { evaluatePreconditions, ifRangeHolds, parseRange } from '../../http/conditional-requests';
import { sendStatusPage } from '../../http/status-page';
import {
  COLLECTION_PASSWORD_REQUIRED,
  countCollectionDownload,
  openCollectionArchive,
} from '../../services/collection-access';
import { GONE_MESSAGES } from '../../services/share-settings';
import { ContentNotFoundError, type ByteRange } from '../../storage/content-store';
import { dispositionHeader, headerText, sendPasswordRefusal } from './raw-file';

/** An archive has no date of its own to compare (its files change): If-Range and the rest go by ETag. */
const NO_DATE = Number.NaN;

export function collectionArchive() {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = res.locals.ctx;
    const collectionId = req.params.id;
    try {
      const { cookie, range: rangeHeader } = req.headers;
      const access = await openCollectionArchive(ctx, collectionId, {
        password: headerText(req.get('x-share-password')),
        grant: readCollectionGrant(cookie, collectionId),
        // Only a range can continue a download (ADR 0056).
        claim: rangeHeader === undefined ? null : readDownloadClaim(cookie, collectionId),
      });
      // Unknown id: the not-found page.
      if (access.kind === 'missing') return next();
      if (access.kind === 'gone') return sendStatusPage(res, 410, 'Link gone', access.message);
      if (access.kind === 'locked')
        return sendStatusPage(res, 401, 'Password required', COLLECTION_PASSWORD_REQUIRED, `/c/${collectionId}`);

      const { collection } = access;
      const archive = await access.archive();
      const precondition = evaluatePreconditions(req, archive.etag, NO_DATE);
      const range =
        precondition === 'none' && ifRangeHolds(req, archive.etag, NO_DATE)
          ? parseRange(rangeHeader, archive.size)
          : null;

      res.setHeader('ETag', archive.etag);
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader(
        'Cache-Control',
        collection.maxDownloads !== null || collection.hasPassword ? 'private, no-store' : 'no-cache',
      );
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', 'sandbox');
      if (precondition !== 'none') return void res.status(precondition === 'not-modified' ? 304 : 412).end();
      if (range === 'unsatisfiable') {
        res.setHeader('Content-Range', `bytes */${archive.size}`);
        return sendStatusPage(res, 416, 'Range not satisfiable', 'The archive has no such byte range.');
      }

      // Every archive sent is a download, wherever its range starts; HEAD sends none (ADR 0056).
      const count = req.method === 'GET' ? await countCollectionDownload(ctx, access, archive, range !== null) : null;
      if (count?.kind === 'gone') return sendStatusPage(res, 410, 'Link gone', GONE_MESSAGES[count.reason]);
      const claim = count?.kind === 'counted' ? count.claim : null;
      if (claim) {
        res.append('Set-Cookie', collectionClaimCookie(ctx.config, collection.id, claim.token, claim.maxAgeSeconds));
        // A visitor's own claim: no shared cache may keep it for others.
        res.setHeader('Cache-Control', 'private, no-store');
      }

      const sent: ByteRange | null = range ?? (archive.size > 0 ? { start: 0, end: archive.size - 1 } : null);
      res.status(range ? 206 : 200);
      if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${archive.size}`);
      res.setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Disposition', dispositionHeader('attachment', archive.name));
      res.setHeader('Content-Length', String(sent ? sent.end - sent.start + 1 : 0));
      if (req.method === 'HEAD' || !sent) return void res.end();
      await archive.send(sent, res);
    } catch (error) {
      if (error instanceof ContentNotFoundError) {
        if (!res.headersSent) return next();
        // A file deleted by its owner while its archive was being sent: the download was cut
        // short (sendZip destroyed the response), which the visitor sees. Nobody's fault, and
        // no stack helps: one warning (ADR 0055).
        ctx.log.warn({ collectionId }, 'archive download cut short: one of its files was deleted meanwhile');
        return;
      }
      if (sendPasswordRefusal(res, error, `/c/${collectionId}`)) return;
      if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      next(error);
    }
  };
}
