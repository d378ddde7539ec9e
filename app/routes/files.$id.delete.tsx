import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { DELETE_NOT_FOUND, DELETE_NOT_YOURS, deleteQuestion } from '~/utils/delete-messages';
import { throwPageError } from '~/utils/errors.server';
import { requireUserPage } from '~/utils/session.server';
import { pageTitle } from '~/utils/titles';

// Deleting without JavaScript (ADR 0008): the Delete button of /files opens this page, which asks
// first, as the browser's confirm dialog does with JavaScript; its form posts here, and the list
// then says which file was deleted. A POST without the page (a script) deletes and goes back to
// /files as it always did.

/** The confirmation page's form says so: the list it leads back to names the deleted file. */
const FROM_CONFIRMATION = 'confirmation';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Delete a file') }];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  try {
    const file = await context.services.files.getOwnFile(context.ctx, params.id ?? '');
    return { id: file.id, name: file.originalName };
  } catch (error) {
    throwPageError(context, error, { 403: DELETE_NOT_YOURS, 404: DELETE_NOT_FOUND });
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  // Back to the list after logging in: the file is named there, not in a form posted anew.
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  // A script's POST may carry no form at all: it deletes all the same.
  const from = await request.formData().then(
    (form) => form.get('from'),
    () => null,
  );
  let name: string;
  try {
    ({ originalName: name } = await context.services.files.deleteFile(context.ctx, params.id ?? ''));
  } catch (error) {
    // In words for a person: the service's (and the API's) 403 and 404 say only "Forbidden", "File not found".
    throwPageError(context, error, { 403: DELETE_NOT_YOURS, 404: DELETE_NOT_FOUND });
  }
  if (from !== FROM_CONFIRMATION) return redirect('/files');
  return redirect(`/files?deleted=${encodeURIComponent(name)}`);
}

export default function DeleteFile() {
  const { name } = useLoaderData<typeof loader>();
  return (
    <main className="narrow">
      <h1>Delete a file</h1>
      <Form method="post" className="card stack">
        <input type="hidden" name="from" value={FROM_CONFIRMATION} />
        <p>{deleteQuestion(name)}</p>
        <p className="actions">
          <button type="submit" className="danger">
            Delete
          </button>
          <Link to="/files">Cancel</Link>
        </p>
      </Form>
    </main>
  );
}

// Its own boundary, so that the error page after the POST still shows the signed-in header
// (Remix runs the loaders above the boundary that catches an action's error).
export function ErrorBoundary() {
  return <ErrorPage />;
}
