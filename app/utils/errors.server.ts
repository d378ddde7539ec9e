import type { AppLoadContext } from '@remix-run/node';
import { json } from '@remix-run/node';

/**
 * The page door's one mapping of service errors: a known AppError becomes its status with
 * its message; anything else is rethrown (logged, then a generic 500 page).
 */
export function pageErrorFrom(context: AppLoadContext, error: unknown): { status: number; message: string } {
  if (context.http.isAppError(error)) return { status: error.status, message: error.message };
  throw error;
}

/** Throws the error as a response for the route's error boundary. */
export function throwPageError(context: AppLoadContext, error: unknown): never {
  const { status, message } = pageErrorFrom(context, error);
  throw json({ message }, { status });
}
