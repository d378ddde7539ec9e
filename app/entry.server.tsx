import { PassThrough } from 'node:stream';
import type { AppLoadContext, EntryContext, HandleDataRequestFunction, HandleErrorFunction } from '@remix-run/node';
import { createReadableStreamFromReadable } from '@remix-run/node';
import { isRouteErrorResponse, RemixServer } from '@remix-run/react';
import { renderToPipeableStream } from 'react-dom/server';
import { NonceContext } from '~/utils/nonce';

/** A render still waiting after this long is stopped. */
const ABORT_DELAY_MS = 5_000;

/**
 * Whatever a signed-in user is shown is theirs: their files, their settings, their name in the
 * header. Kept by no cache, not even the browser's, so that Back after logging out (or the next
 * person at a shared computer) cannot bring it up again; it also keeps such pages out of the
 * back/forward cache. Pages for a visitor with no session (a share page, the login page) are
 * the same for everyone and keep the default. Raw files (/f/<id>/raw) are not rendered here:
 * server/doors/raw/raw-file.ts sets their own Cache-Control.
 */
const PRIVATE_PAGE_CACHE_CONTROL = 'private, no-store';

function markPrivate(headers: Headers, loadContext: AppLoadContext): void {
  if (loadContext.ctx.user) headers.set('Cache-Control', PRIVATE_PAGE_CACHE_CONTROL);
}

// The loaders' and actions' data fetched by the pages once JavaScript runs (`<path>.data`): the same rule.
export const handleDataRequest: HandleDataRequestFunction = (response, { context }) => {
  markPrivate(response.headers, context);
  return response;
};

/**
 * What Remix reports goes to our JSON log, one line each, like every other log line: its default
 * printed each error's stack to the console, a dozen plain-text lines among the JSON ones. A
 * refusal by Remix's router is the client's mistake, not a fault (405: a form posted to a page
 * that takes none, an OPTIONS): the request's own line already has its status, so it adds at
 * most a debug line, without a stack. As Remix's default, an aborted request logs nothing.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  const path = new URL(request.url).pathname;
  if (isRouteErrorResponse(error) && error.status < 500) {
    context.ctx.log.debug({ status: error.status, path, reason: error.data }, 'request refused by the router');
    return;
  }
  // An error response Remix made of a fault carries the fault itself, with its stack (kept inside the JSON line).
  const fault = isRouteErrorResponse(error) ? ((error as { error?: unknown }).error ?? error) : error;
  context.ctx.log.error({ err: fault, path }, 'request failed');
};

/**
 * An error page says when to try again if the response its route threw did (a database or
 * storage outage, server/doors/pages/page-outages.ts): Remix hands a thrown response's headers only to
 * a route's `headers` function, which our routes do not need otherwise.
 */
function keepErrorRetryAfter(headers: Headers, remixContext: EntryContext): void {
  const { errors, actionHeaders, loaderHeaders } = remixContext.staticHandlerContext;
  if (!errors) return;
  for (const thrown of [...Object.values(actionHeaders), ...Object.values(loaderHeaders)]) {
    const retryAfter = thrown.get('Retry-After');
    if (retryAfter) {
      headers.set('Retry-After', retryAfter);
      return;
    }
  }
}

// Pages are rendered whole before sending (onAllReady): they must work without JavaScript.
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  markPrivate(responseHeaders, loadContext);
  keepErrorRetryAfter(responseHeaders, remixContext);
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        {/* The nonce also goes on the scripts that stream the loaders' data to the page (single fetch, ADR 0031). */}
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY_MS} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onAllReady() {
          clearTimeout(abortTimer);
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8');
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          clearTimeout(abortTimer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Logged by the server's error handling; never shown to the user.
          if (shellRendered) console.error(error);
        },
      },
    );
    // Cleared once the render is done: a pending timer keeps the whole render (request, React
    // tree, streams) reachable for its 5 s, which under 32 clients held ~1,700 pages and took the
    // server from ~110 to ~190 MB (docs/performance.md).
    const abortTimer = setTimeout(abort, ABORT_DELAY_MS);
  });
}
