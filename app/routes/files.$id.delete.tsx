import type { ActionFunctionArgs } from '@remix-run/node';
import { json, redirect } from '@remix-run/node';
import { throwPageError } from '~/utils/errors.server';
import { requireUserPage } from '~/utils/session.server';

// The delete button of /files posts here when JavaScript is off.
export async function action({ request, params, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  try {
    await context.services.files.deleteFile(context.ctx, params.id ?? '');
  } catch (error) {
    throwPageError(context, error);
  }
  return redirect('/files');
}

export function loader() {
  throw json({ message: 'Page not found' }, { status: 404 });
}
