// GET/HEAD /f/:id/thumbnail — a small WebP of a shared image (ADR 0041), under the same share
// controls as the raw link: an expired or used-up link is 410, a protected one 401 without its
// password. Looking at a thumbnail is not a download: where visitors' downloads are counted,
// they get no preview of it (as on the share page), and the owner alone sees it. A file with
// no thumbnail (not an image, an image that could not be read, one still being made) is the
// not-found page.
import type { NextFunction, Request, Response } from 'express';
import etag from 'etag';
import { readCollectionGrants, readShareGrant } from '../../auth/cookie';
import { evaluatePreconditions } from '../../http/conditional-requests';
import { sendStatusPage } from '../../http/status-page';
import { openShare, PASSWORD_REQUIRED } from '../../services/share-access';
import { thumbnailsOf } from '../../services/thumbnails';
import { headerText, sendPasswordRefusal } from './raw-file';

/** A thumbnail has no date of its own to compare: conditional requests go by ETag. */
const NO_DATE = Number.NaN;

export function fileThumbnail() {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = res.locals.ctx;
    const fileId = req.params.id;
    try {
      const proof = {
        password: headerText(req.get('x-share-password')),
        grant: readShareGrant(req.headers.cookie, fileId),
        collectionGrants: readCollectionGrants(req.headers.cookie),
      };
      const shared = await openShare(ctx, fileId, proof, { checkContent: false });
      if (shared.kind === 'missing') return next();
      if (shared.kind === 'gone') return sendStatusPage(res, 410, 'Link gone', shared.message);
      if (shared.kind === 'locked') {
        return sendStatusPage(
          res,
          401,
          'Password required',
          `${PASSWORD_REQUIRED} Open its share page to enter the password.`,
          `/f/${fileId}`,
        );
      }
      if (!shared.previewable) return next();
      const { file } = shared;
      const thumbnail = await thumbnailsOf(ctx.store, ctx.log).read(file);
      if (!thumbnail) return next();

      const tag = etag(thumbnail);
      // The thumbnail of a file never changes; a link that asks for a password, counts, or
      // expires keeps it out of shared caches, which would go on serving it.
      const shareable = !file.hasPassword && file.maxDownloads === null && file.expiresAt === null;
      res.setHeader('Cache-Control', shareable ? 'public, max-age=31536000, immutable' : 'private');
      res.setHeader('ETag', tag);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', 'sandbox');
      const precondition = evaluatePreconditions(req, tag, NO_DATE);
      if (precondition !== 'none') return void res.status(precondition === 'not-modified' ? 304 : 412).end();
      res.status(200);
      res.setHeader('Content-Type', 'image/webp');
      res.setHeader('Content-Length', String(thumbnail.length));
      res.end(req.method === 'HEAD' ? undefined : thumbnail);
    } catch (error) {
      if (sendPasswordRefusal(res, error, `/f/${fileId}`)) return;
      next(error);
    }
  };
}
