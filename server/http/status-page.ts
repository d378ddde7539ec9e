// The answers given outside Remix: a small HTML page (the raw link's 401 and 410, a refused
// cross-site form; every text is escaped, though callers pass fixed ones), the plain 500, and
// the 503 of a dependency outage.
import type { Response } from 'express';
import type { DependencyUnavailableError } from '../utilities/errors';
import type { ResponseWithLocals } from './request-context';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

/** Sends `status` with a page saying `message`, and a link to `linkTo` (a local path) or home. */
export function sendStatusPage(res: Response, status: number, title: string, message: string, linkTo?: string): void {
  res
    .status(status)
    .type('html')
    .send(statusPageHtml(title, message, linkTo));
}

function statusPageHtml(title: string, message: string, linkTo?: string): string {
  const link = linkTo
    ? `<a href="${escapeHtml(linkTo)}">Go to the share page</a>`
    : '<a href="/">Go to the home page</a>';
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p>${link}</p>
</main>
</body>
</html>
`;
}

/** A raw link, whose answers are plain text (a download tool shows them as they are). */
const RAW_LINK_PATH = /^\/f\/[^/]+\/raw\/?$/;

/**
 * A request that failed on our side, outside the API: logged, then a plain-text 500, or the
 * connection cut when the answer had begun (Express's last handler, the raw link's fast path).
 * A dependency outage is a 503 instead, logged once per outage (ADR 0030).
 */
export function answerServerFault(res: ResponseWithLocals, error: unknown, path: string): void {
  const outage = res.locals?.ctx?.outages.recognise(error);
  if (outage) {
    answerOutage(res, outage, path);
    return;
  }
  res.locals?.ctx?.log.error({ err: error, path }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Internal server error');
}

/** 503 with Retry-After: plain text on a raw link, a page anywhere else (a page whose session could not be read). */
function answerOutage(res: ResponseWithLocals, outage: DependencyUnavailableError, path: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = outage.status;
  res.setHeader('Retry-After', String(outage.retryAfterSeconds));
  res.setHeader('Cache-Control', 'no-store');
  if (RAW_LINK_PATH.test(path)) {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(outage.message);
    return;
  }
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(statusPageHtml('Temporarily unavailable', outage.message));
}
