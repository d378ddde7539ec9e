import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { throwPageError } from '~/utils/errors.server';

// The Cancel button of an unfinished upload on /files posts here (with or without JavaScript):
// the upload and its bytes go, its hold on the quota with them, and the list comes back. The
// service checks that the upload is the caller's: another user's is "not found".

/** In words for a person: the service (and the API) say only "Upload not found" / "This upload has expired". */
const UPLOAD_GONE = 'This upload is not there any more: it finished, was cancelled or expired.';

export const meta: MetaFunction = ({ error, matches }) => errorMeta(error, matches);

export async function action({ params, context }: ActionFunctionArgs) {
  // Back to the list after logging in: this address only takes POSTs.
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  try {
    await context.services.resumableUploads.cancelResumableUpload(context.ctx, params.id ?? '');
  } catch (error) {
    throwPageError(context, error, { 404: UPLOAD_GONE, 410: UPLOAD_GONE });
  }
  return redirect('/files');
}

export function loader() {
  throw json({ message: 'Page not found.' }, { status: 404 });
}

// A UI route, not a resource route: a thrown error renders the error page (HTML with its status).
export default function CancelUpload() {
  return null;
}

// Its own boundary, so that the error page after the POST still shows the signed-in header.
export function ErrorBoundary() {
  return <ErrorPage />;
}
