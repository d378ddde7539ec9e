import type { ActionFunctionArgs } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { throwPageError } from '~/utils/errors.server';

// The delete button of /files posts here when JavaScript is off.
export async function action({ params, context }: ActionFunctionArgs) {
  // Back to the list after logging in: this address only takes POSTs, a GET of it is a 404.
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  try {
    await context.services.files.deleteFile(context.ctx, params.id ?? '');
  } catch (error) {
    throwPageError(context, error);
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
