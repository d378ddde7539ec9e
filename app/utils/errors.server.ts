import type { AppLoadContext } from '@remix-run/node';
import { data } from '@remix-run/node';

/**
 * The page door's one mapping of service errors: a known AppError becomes its status with
 * its message; anything else is rethrown (logged, then a generic 500 page). A dependency outage
 * is rethrown too: every page shows it as the same 503 error page (server/doors/pages/page-outages.ts).
 */
export function pageErrorFrom(context: AppLoadContext, error: unknown): { status: number; message: string } {
  if (context.http.isAppError(error) && error.code !== 'DEPENDENCY_UNAVAILABLE')
    return { status: error.status, message: error.message };
  throw error;
}

/**
 * Throws the error as a response for the route's error boundary. `inWords` replaces the
 * service's message for a status where a page has something clearer to say to a person than
 * the API's terse one (a 403's "Forbidden").
 */
export function throwPageError(
  context: AppLoadContext,
  error: unknown,
  inWords: Partial<Record<number, string>> = {},
): never {
  const { status, message } = pageErrorFrom(context, error);
  throw data({ message: inWords[status] ?? message }, { status });
}

/**
 * A refused share password (a file's or a collection's) as the page answers it: a link that is not
 * there (said as `notFound`, when given) or gone is thrown as its error page; a wrong password
 * (401) or too many (429, with its Retry-After) comes back to the form with the status and the message.
 */
export function unlockRefusal(
  context: AppLoadContext,
  error: unknown,
  notFound?: string,
): { status: number; message: string; headers: Record<string, string> } {
  const { status, message } = pageErrorFrom(context, error);
  if (status === 404) throw data({ message: notFound ?? message }, { status });
  if (status === 410) throw data({ message }, { status });
  const headers: Record<string, string> = {};
  if (context.http.isAppError(error) && error.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(error.retryAfterSeconds);
  return { status, message, headers };
}
