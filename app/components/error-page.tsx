import type { MetaDescriptor, MetaFunction } from '@remix-run/node';
import { Link, isRouteErrorResponse, useRouteError, useRouteLoaderData } from '@remix-run/react';
import type { loader as rootLoader } from '~/root';
import { pageTitle } from '~/utils/titles';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Please log in',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Wrong kind of request',
  410: 'Link gone',
  413: 'File too large',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
};

function statusOf(error: unknown): number {
  return isRouteErrorResponse(error) ? error.status : 500;
}

function headingOf(status: number): string {
  return TITLES[status] ?? 'Something went wrong';
}

/**
 * What a page says when its error carries no message of ours. A 405 is Remix's answer to a
 * request a page does not take (a form posted to a page without one, an OPTIONS): the client's
 * mistake, so it says that, not that we failed.
 */
const MESSAGES: Record<number, string> = {
  404: 'Page not found.',
  405: 'This address does not take that request: it is a page to open, not one to send a form to.',
};

/**
 * The document title of an error page. A route whose module exports the ErrorBoundary (and a
 * `meta`) returns this from its `meta` when it is given an error: its own title would otherwise
 * name a page that is not shown.
 */
export function errorMeta(error: unknown, matches: Parameters<MetaFunction>[0]['matches']): MetaDescriptor[] {
  const status = statusOf(error);
  return [{ title: pageTitle(matches, TITLES[status] ?? 'Error') }];
}

/**
 * Every error as a page with its status; a fault shows a generic message, never a stack trace.
 *
 * The root's ErrorBoundary, and also that of every route with an action: when an action
 * throws, Remix runs only the loaders *above* the boundary that catches it. Caught by the
 * root, that left no root loader data, so a 403/404/400 after a form showed the page as
 * logged out; caught by the route's own boundary, the root loader runs and the header shows
 * the signed-in user. `filesLink` words the link to /files where a route has a better one
 * ("Go to your newest files" after a page of files that is gone).
 */
export function ErrorPage({ filesLink = 'Go to my files' }: { filesLink?: string } = {}) {
  const error = useRouteError();
  // Missing when the root loader itself failed: then only the home link is offered.
  const user = useRouteLoaderData<typeof rootLoader>('root')?.user;
  const status = statusOf(error);
  const message =
    isRouteErrorResponse(error) && typeof error.data?.message === 'string'
      ? error.data.message
      : (MESSAGES[status] ?? 'Something went wrong on our side. Please try again.');
  return (
    <main className="narrow error-page">
      <p className="status">{status}</p>
      <h1>{headingOf(status)}</h1>
      <p>{message}</p>
      <p className="actions">
        <Link to="/">Go to the home page</Link>
        {user ? <Link to="/files">{filesLink}</Link> : null}
      </p>
    </main>
  );
}
