import type { MetaFunction } from '@remix-run/node';

// What the site calls itself (SITE_NAME, the root loader's `siteName`) in page titles and link
// previews: every route's `meta` names its page with it.

type Matches = Parameters<MetaFunction>[0]['matches'];

export function siteNameOf(matches: Matches): string {
  const root = matches.find((match) => match.id === 'root')?.data as { siteName?: string } | undefined;
  return root?.siteName ?? 'File sharing';
}

/** "<page> · <site>", or the site's name alone. */
export function pageTitle(matches: Matches, page?: string): string {
  const site = siteNameOf(matches);
  return page ? `${page} · ${site}` : site;
}
