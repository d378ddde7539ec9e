// A page of My files as the page shows it: its loader's first render and the tRPC `files.list`
// the page fetches in place with JavaScript (ADR 0075) take it from here, so both keep the same
// page size, cursor rules and thumbnails.
import type { ServiceContext } from '../context';
import { listFilesPage, shareUrl } from './files';
import { thumbnailExpected } from './thumbnails';

/**
 * Files per page (ADR 0008, "Pages of files"): a page of 100 rows is about 120 KB of HTML and
 * page data, where a ShareX user's whole list was megabytes.
 */
const FILES_PER_PAGE = 100;

/** The address's fields of a page of the list: blank ones are no filter; no cursor is the first page. */
export interface MyFilesPageQuery {
  q?: string;
  type?: string;
  sort?: string;
  cursor?: string;
}

/**
 * One page of the caller's files (the API's keyset pages, docs/api.md: each costs the same however
 * far in; the cursor only ever moves within the caller's own files), each with its share link and
 * whether it has a thumbnail to show. A bad cursor, type or order is a 400 (BAD_REQUEST).
 */
export async function listMyFilesPage(ctx: ServiceContext, query: MyFilesPageQuery) {
  const page = await listFilesPage(ctx, { ...query, limit: FILES_PER_PAGE, cursor: query.cursor || undefined });
  const now = ctx.clock.now();
  // The owner sees the thumbnail of any of their images, password or download limit or not
  // (ADR 0041); a link that has expired or used up its downloads shows none to anybody (410).
  const gone = (file: (typeof page.files)[number]) =>
    (file.expiresAt !== null && Date.parse(file.expiresAt) <= now) ||
    (file.maxDownloads !== null && file.downloads >= file.maxDownloads);
  return {
    files: page.files.map((file) => ({
      ...file,
      url: shareUrl(ctx, file.id),
      thumbnail: thumbnailExpected(file) && !gone(file),
    })),
    nextCursor: page.nextCursor,
  };
}
