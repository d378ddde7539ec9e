// The share page of an open link as a visitor without cookies sees it (every recipient's first
// look, every chat app's link preview), drawn once and sent again while the file says the same
// (ADR 0051). The file's row is read for every request, so a rename, a new password, a changed
// limit, a counted download, an expiry or a deletion shows at once, on every instance; only the
// drawing is saved. The page's one per-response part, the CSP nonce of its inline scripts, is
// put in afresh each time.
import type { NextFunction, Request, Response } from 'express';
import { visitorOrigin } from '../../http/link-base';
import { countPageView, sharePageVersion } from '../../services/share-access';

/** A page larger than this (a long text preview) is drawn each time. */
const MAX_PAGE_BYTES = 256 * 1024;
/** All pages kept, at most: the least recently sent go first. */
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

/** A file id as links carry it; anything else (`/f/<id>.data`, a typo) is the page's to answer. */
const FILE_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface KeptPage {
  /** What the file said when it was drawn (sharePageVersion). */
  version: string;
  headers: Array<[string, string]>;
  /** The page cut where its nonce was: joined with the response's own. */
  parts: Buffer[];
  bytes: number;
}

/** What a request whose page may be kept carries to the pages' door (res.locals.sharePageToKeep). */
export interface PageToKeep {
  key: string;
  version: string;
  nonce: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      sharePageToKeep?: PageToKeep;
    }
  }
}

export class SharePageCache {
  private readonly pages = new Map<string, KeptPage>();
  private bytes = 0;

  /** The page kept under `key`, if it was drawn for the same version. */
  find(key: string, version: string): KeptPage | undefined {
    const page = this.pages.get(key);
    if (!page) return undefined;
    if (page.version !== version) {
      this.forget(key);
      return undefined;
    }
    // Most recently sent last: the first in the map is the next to go.
    this.pages.delete(key);
    this.pages.set(key, page);
    return page;
  }

  keep(toKeep: PageToKeep, headers: Array<[string, string]>, html: Buffer): void {
    if (html.length > MAX_PAGE_BYTES) return;
    this.forget(toKeep.key);
    const page: KeptPage = { version: toKeep.version, headers, parts: split(html, toKeep.nonce), bytes: html.length };
    this.pages.set(toKeep.key, page);
    this.bytes += page.bytes;
    for (const [key] of this.pages) {
      if (this.bytes <= MAX_TOTAL_BYTES) break;
      this.forget(key);
    }
  }

  private forget(key: string): void {
    const page = this.pages.get(key);
    if (!page) return;
    this.pages.delete(key);
    this.bytes -= page.bytes;
  }
}

function split(html: Buffer, nonce: string): Buffer[] {
  const parts: Buffer[] = [];
  const needle = Buffer.from(nonce);
  let from = 0;
  for (let at = html.indexOf(needle, from); at !== -1; at = html.indexOf(needle, from)) {
    parts.push(html.subarray(from, at));
    from = at + needle.length;
  }
  parts.push(html.subarray(from));
  return parts;
}

/**
 * GET /f/<id> from a visitor with no cookie and no query: the kept page when the file still says
 * what it said when the page was drawn; otherwise on to the page, which is kept once drawn.
 */
export function sharePagesFromCache(cache: SharePageCache) {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = req.params.id ?? '';
    if (
      req.method !== 'GET' ||
      !FILE_ID.test(id) ||
      req.headers.cookie ||
      req.headers.authorization ||
      req.url.includes('?')
    )
      return next();
    // A fault reading the file (an outage) is the page's to answer, as it answers its own.
    sharePageVersion(res.locals.ctx, id).then(
      (version) => {
        if (version === null) return next();
        // By the address it was asked at too: its links start there (http/link-base.ts).
        const key = `${visitorOrigin(req) ?? ''}\n${id}`;
        const page = cache.find(key, version);
        if (!page) {
          res.locals.sharePageToKeep = { key, version, nonce: res.locals.cspNonce };
          return next();
        }
        // A look like any other (the page's loader counts those it draws); a request without a cookie is never the owner's.
        countPageView(res.locals.ctx, { fileId: id, isOwner: false });
        for (const [name, value] of page.headers) res.setHeader(name, value);
        res.status(200).end(Buffer.concat(joinedWith(page.parts, Buffer.from(res.locals.cspNonce))));
      },
      () => next(),
    );
  };
}

function joinedWith(parts: Buffer[], nonce: Buffer): Buffer[] {
  const joined: Buffer[] = [];
  parts.forEach((part, index) => {
    if (index > 0) joined.push(nonce);
    joined.push(part);
  });
  return joined;
}

/**
 * The pages' door's side: a page drawn for a request marked to keep it (a 200 HTML page) is read
 * whole, kept, and sent; null when this answer is not one to keep.
 */
export async function keptPageBody(
  cache: SharePageCache,
  res: Response,
  answer: globalThis.Response,
): Promise<Buffer | null> {
  const toKeep = res.locals.sharePageToKeep;
  if (!toKeep || answer.status !== 200 || !answer.headers.get('content-type')?.startsWith('text/html')) return null;
  const html = Buffer.from(await answer.arrayBuffer());
  const headers: Array<[string, string]> = [];
  // A page with a cookie or a private cache rule is for one person: never kept.
  if (answer.headers.has('set-cookie') || /private|no-store/.test(answer.headers.get('cache-control') ?? ''))
    return html;
  for (const [name, value] of answer.headers.entries())
    if (name !== 'content-length' && name !== 'transfer-encoding') headers.push([name, value]);
  cache.keep(toKeep, headers, html);
  return html;
}
