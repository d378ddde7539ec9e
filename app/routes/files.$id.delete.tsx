import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { DELETE_NOT_FOUND, DELETE_NOT_YOURS } from '~/utils/delete-messages';
import { throwPageError } from '~/utils/errors.server';

// The delete button of /files posts here when JavaScript is off: it deletes and goes back to
// /files, where the file is gone (ADR 0008: no confirmation step and no notice without
// JavaScript; with it, the list asks with the browser's confirm dialog and says what it did).

export const meta: MetaFunction = ({ error }) => errorMeta(error);

export async function action({ params, context }: ActionFunctionArgs) {
  // Back to the list after logging in: this address only takes POSTs, a GET of it is a 404.
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  try {
    await context.services.files.deleteFile(context.ctx, params.id ?? '');
  } catch (error) {
    // In words for a person: the service's (and the API's) 403 and 404 say only "Forbidden", "File not found".
    throwPageError(context, error, { 403: DELETE_NOT_YOURS, 404: DELETE_NOT_FOUND });
  }
  return redirect('/files');
}

export function loader() {
  throw json({ message: 'Page not found.' }, { status: 404 });
}

// A UI route, not a resource route: a thrown 403/404 then renders the error page (HTML with
// that status) instead of going out as bare JSON.
export default function DeleteFile() {
  return null;
}

// Its own boundary, so that the error page after the POST still shows the signed-in header
// (Remix runs the loaders above the boundary that catches an action's error).
export function ErrorBoundary() {
  return <ErrorPage />;
}
