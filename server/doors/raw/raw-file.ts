// GET/HEAD /f/:id/raw — the shared content, served like a good static server: streamed,
// single byte ranges, conditional requests, and never active content inline.
// Share controls (ADR 0014): an expired or used-up link is 410, a protected one 401 without
// its password (X-Share-Password, or the cookie the share page sets), and every GET that sends
// content, by anyone but the owner, uses up one download, unless it is a range continuing a
// download counted before for the same visitor: the counted answer leaves a claim (ADR 0056).
// GET/HEAD /f/:id/preview — the same content under the same controls for the share page's own
// image, player or PDF, which counts nothing (ADR 0066): always inline, only of the kinds the
// page shows that way, and never to a visitor of a link with a download limit.
import contentDisposition from 'content-disposition';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { fileClaimCookie, readCollectionGrants, readDownloadClaim, readShareGrant } from '../../auth/cookie';
import type { ServiceContext } from '../../context';
import { isAppError } from '../../utilities/errors';
import { isInlineSafe } from '../../services/content-policy';
import { countFileDownload, openShare, PASSWORD_REQUIRED, previewsContent } from '../../services/share-access';
import { GONE_MESSAGES } from '../../services/share-settings';
import { ContentNotFoundError, type ByteRange, type OpenedContent } from '../../storage/content-store';
import { evaluatePreconditions, ifRangeHolds, parseRange } from '../../http/conditional-requests';
import { sendStatusPage } from '../../http/status-page';

/** The policy of inline content: it may show itself and same-origin media, never run script. */
const INLINE_CSP =
  "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; object-src 'self'; " +
  "frame-ancestors 'self'";

/** What a request for the raw content asks: the file, how to send it, and the password it carries. */
export interface RawFileRequest {
  fileId: string;
  /**
   * `download`: the raw link, whose answers count downloads (ADR 0056); `preview`: the share
   * page's own preview, inline, counting nothing (ADR 0066).
   */
  use: 'download' | 'preview';
  /** `?download` of the raw link: always as an attachment, even content that may show inline. */
  asDownload: boolean;
  /** The X-Share-Password header. */
  password?: string;
}

/** Sent, or why not: an unknown file (the not-found page), a gone link (410), a locked one (401). */
export type RawFileOutcome = { kind: 'served' } | RawFileRefusal;
type RawFileRefusal = { kind: 'missing' } | { kind: 'gone'; message: string } | { kind: 'locked'; fileId: string };

/**
 * The refusals the fast path met (raw-file-fast-path.ts) and left to the Express route to
 * answer, by request: the route answers from them, so a file is looked up once per request.
 */
const refusalsPassedOn = new WeakMap<IncomingMessage, RawFileRefusal>();

/** Leaves a refusal met ahead of Express to the Express route, which answers it without asking again. */
export function passOnRefusal(req: IncomingMessage, refusal: RawFileRefusal): void {
  refusalsPassedOn.set(req, refusal);
}

/**
 * Answers the request with the content (or 304, 412, 416), with plain Node calls: the fast
 * path ahead of Express uses it too (raw-file-fast-path.ts). Sends nothing for a refusal, which
 * it returns instead. Rejects with an AppError for a wrong password (401) or too many (429).
 */
export async function serveRawFile(
  ctx: ServiceContext,
  req: IncomingMessage,
  res: ServerResponse,
  request: RawFileRequest,
): Promise<RawFileOutcome> {
  let content: OpenedContent | undefined;
  try {
    // The content is not looked up first: opening it tells (one request to the store less).
    const { cookie, range: rangeHeader } = req.headers;
    const proof = {
      password: request.password,
      grant: readShareGrant(cookie, request.fileId),
      collectionGrants: readCollectionGrants(cookie),
      // Only a range can continue a download: a plain GET reads no claim (ADR 0056). A preview
      // continues none: a used-up link previews nothing.
      claim: rangeHeader === undefined || request.use === 'preview' ? null : readDownloadClaim(cookie, request.fileId),
    };
    const shared = await openShare(ctx, request.fileId, proof, { checkContent: false });
    if (shared.kind === 'missing') return shared;
    if (shared.kind === 'gone') return { kind: 'gone', message: shared.message };
    if (shared.kind === 'locked') return shared;
    // No preview of this file for this visitor: as if there were none (the thumbnail does the same).
    if (request.use === 'preview' && !previewsContent(shared)) return { kind: 'missing' };
    const { file, size, etag } = shared;

    // A preview's kinds are all inline-safe (previewsContent).
    const inline = request.use === 'preview' || (isInlineSafe(file.mimeType) && !request.asDownload);
    // HTTP dates have whole seconds: compare at that precision.
    const lastModifiedMs = Math.floor(new Date(file.createdAt).getTime() / 1000) * 1000;

    const precondition = evaluatePreconditions(req, etag, lastModifiedMs);
    const range =
      precondition === 'none' && ifRangeHolds(req, etag, lastModifiedMs) ? parseRange(rangeHeader, size) : null;

    let status: number;
    let contentRange: string | undefined;
    let length = 0;
    if (precondition === 'not-modified') status = 304;
    else if (precondition === 'failed') status = 412;
    else if (range === 'unsatisfiable') {
      status = 416;
      contentRange = `bytes */${size}`;
    } else if (range) {
      status = 206;
      contentRange = `bytes ${range.start}-${range.end}/${size}`;
      length = range.end - range.start + 1;
    } else {
      status = 200;
      length = size;
    }

    // Open the content before committing to any header: if it is gone (deleted meanwhile, or
    // lost), this is still a plain 404 and not a broken 200. An answer without a body asks.
    if (req.method !== 'HEAD' && length > 0) {
      // Always with a byte range, the whole file included: the store sizes its read buffer to
      // what is left to send, so a 4 KiB file never costs a 1 MiB buffer.
      try {
        content = await shared.open(status === 206 ? (range as ByteRange) : { start: 0, end: size - 1 });
      } catch (error) {
        if (error instanceof ContentNotFoundError) return { kind: 'missing' };
        throw error;
      }
    } else if (!(await shared.contentExists())) {
      return { kind: 'missing' };
    }

    // Every answer of the raw link that sends content is a download, wherever its range starts
    // (ADR 0056); HEAD, 304, 412 and 416 send none, and the page's own preview counts none (ADR 0066).
    const sendsContent = request.use === 'download' && req.method === 'GET' && (status === 200 || status === 206);
    const count = sendsContent ? await countFileDownload(ctx, shared, status === 206) : null;
    if (count?.kind === 'gone') {
      content?.stream.destroy();
      content = undefined;
      return { kind: 'gone', message: GONE_MESSAGES[count.reason] };
    }
    const claim = count?.kind === 'counted' ? count.claim : null;
    if (claim) res.appendHeader('Set-Cookie', fileClaimCookie(ctx.config, file.id, claim.token, claim.maxAgeSeconds));
    // Whoever may count downloads, know the password or hold a claim: no shared cache may keep a copy.
    const privateCopy = file.maxDownloads !== null || file.hasPassword || claim !== null;

    res.statusCode = status;
    res.setHeader('Content-Type', inline ? contentTypeOf(file.mimeType) : 'application/octet-stream');
    res.setHeader(
      'Content-Disposition',
      dispositionHeader(inline ? 'inline' : 'attachment', downloadName(file.originalName)),
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // A shared file may be deleted at any time: caches must check back (cheap, thanks to the ETag).
    res.setHeader('Cache-Control', privateCopy ? 'private, no-store' : 'no-cache');
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', new Date(lastModifiedMs).toUTCString());
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    // Downloads get an opaque origin and no script, should a browser render them anyway.
    res.setHeader('Content-Security-Policy', inline ? INLINE_CSP : 'sandbox');
    if (contentRange) res.setHeader('Content-Range', contentRange);

    if (status === 304) {
      res.end();
      return { kind: 'served' };
    }
    res.setHeader('Content-Length', String(length));
    if (!content) {
      res.end();
      return { kind: 'served' };
    }
    await content.pipeTo(res);
    return { kind: 'served' };
  } catch (error) {
    content?.stream.destroy();
    // A client that goes away mid-download is not a fault.
    if ((error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return { kind: 'served' };
    throw error;
  }
}

/**
 * A header's value as the client meant it. Node reads header bytes as Latin-1; clients (curl,
 * fetch in a script) send UTF-8, so a password such as "pässwörd" arrives as "pÃ¤sswÃ¶rd". Bytes
 * that are valid UTF-8 are read as UTF-8; anything else stays as Node read it.
 */
export function headerText(value: string | undefined): string | undefined {
  if (value === undefined || !/[\u0080-\u00ff]/.test(value)) return value;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/**
 * The route in Express, of the raw link or (`preview`) of the share page's preview: refusals
 * answered with a status page, or the not-found page after it.
 */
export function rawFile(use: RawFileRequest['use'] = 'download') {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const outcome =
        refusalsPassedOn.get(req) ??
        (await serveRawFile(res.locals.ctx, req, res, {
          fileId: req.params.id,
          use,
          // A preview is never an attachment: it is not a way to download.
          asDownload: use === 'download' && req.query.download !== undefined,
          password: headerText(req.get('x-share-password')),
        }));
      // Unknown id or missing content: fall through to the not-found page.
      if (outcome.kind === 'missing') return next();
      if (outcome.kind === 'gone') return sendStatusPage(res, 410, 'Link gone', outcome.message);
      if (outcome.kind === 'locked') {
        return sendStatusPage(
          res,
          401,
          'Password required',
          `${PASSWORD_REQUIRED} Open its share page to enter the password.`,
          `/f/${outcome.fileId}`,
        );
      }
    } catch (error) {
      if (sendPasswordRefusal(res, error, `/f/${req.params.id}`)) return;
      next(error);
    }
  };
}

/**
 * Answers a wrong X-Share-Password (401), or too many of them (429), with the status page that
 * points to the share page at `sharePage`; true when it did. Anything else (an outage is answered
 * by Express's last handler, as plain text: status-page.ts) is left to the caller.
 */
export function sendPasswordRefusal(res: Response, error: unknown, sharePage: string): boolean {
  if (!isAppError(error) || error.code === 'DEPENDENCY_UNAVAILABLE' || res.headersSent) return false;
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  sendStatusPage(
    res,
    error.status,
    error.status === 429 ? 'Too many attempts' : 'Password required',
    error.message,
    sharePage,
  );
  return true;
}

function contentTypeOf(mimeType: string): string {
  return mimeType === 'text/plain' ? 'text/plain; charset=utf-8' : mimeType;
}

/**
 * The name offered for saving: the last segment of the original name, which may carry the
 * uploader's folders (`photos/a.jpg`, or `C:\Users\me\a.jpg` from old Windows browsers);
 * never empty. content-disposition would cut at `/` and `\` alike, possibly down to nothing.
 */
function downloadName(name: string): string {
  return (
    name
      .split(/[/\\]/)
      .filter((segment) => segment.trim() !== '')
      .pop() ?? 'download'
  );
}

/**
 * `filename=` (an ASCII fallback, quoted by the library) and always `filename*=UTF-8''…` with the
 * exact name (RFC 6266), even when the two read the same (the library would then
 * send the fallback alone).
 */
export function dispositionHeader(type: 'inline' | 'attachment', name: string): string {
  return `${contentDisposition(asciiFallback(name), { type })}; filename*=UTF-8''${encodeExtValue(name)}`;
}

/** RFC 8187 value-chars: percent-encoded UTF-8 except ALPHA DIGIT and !#$&+-.^_`|~ . */
function encodeExtValue(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * An ASCII rendering of the name for the `filename=` fallback: accents stripped, anything
 * else non-ASCII, quotes, backslashes, percent signs and controls replaced (RFC 6266).
 */
function asciiFallback(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, '_')
    .replace(/["\\%]/g, '_')
    .trim();
  return ascii || 'download';
}
