import type { HeadersFunction } from '@remix-run/node';

/**
 * The headers of a share page's document (a file's or a collection's): the action's Retry-After
 * (a 429 after too many passwords), and the loader's Cache-Control (a page opened with its
 * password stays out of every cache, as the raw link's answer does: ADR 0014).
 */
export const sharePageHeaders: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers();
  const retryAfter = actionHeaders.get('Retry-After') ?? loaderHeaders.get('Retry-After');
  if (retryAfter) headers.set('Retry-After', retryAfter);
  const cacheControl = loaderHeaders.get('Cache-Control');
  if (cacheControl) headers.set('Cache-Control', cacheControl);
  return headers;
};
