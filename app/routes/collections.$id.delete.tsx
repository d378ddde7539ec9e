import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { COLLECTION_DELETE_NOT_FOUND } from '~/utils/delete-messages';
import { counted } from '~/utils/format';
import { throwPageError } from '~/utils/errors.server';
import { requireUserPage } from '~/utils/session.server';
import { pageTitle } from '~/utils/titles';

// Deleting a collection from the pages: the Delete link beside it on /files opens this page,
// which asks first, and whether its files go too (by default they stay, with their own links, as
// `DELETE /api/v1/collections/<id>` without `deleteFiles` does). The list then says what went.
// Another user's collection is not found, as an id that does not exist.

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Delete a collection') }];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  try {
    const collection = await context.services.collections.getOwnCollection(context.ctx, params.id ?? '');
    return { title: collection.title, fileCount: collection.fileCount };
  } catch (error) {
    throwPageError(context, error, { 404: COLLECTION_DELETE_NOT_FOUND });
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  if (!context.ctx.user) throw redirect(`/login?redirectTo=${encodeURIComponent('/files')}`);
  const form = await request.formData().catch(() => null);
  const deleteFiles = form?.get('files') === 'delete';
  let title: string;
  try {
    ({ title } = await context.services.collections.deleteCollection(context.ctx, params.id ?? '', { deleteFiles }));
  } catch (error) {
    throwPageError(context, error, { 404: COLLECTION_DELETE_NOT_FOUND });
  }
  return redirect(`/files?deleted=${encodeURIComponent(title)}`);
}

export default function DeleteCollection() {
  const { title, fileCount } = useLoaderData<typeof loader>();
  return (
    <main className="narrow">
      <h1>Delete a collection</h1>
      <Form method="post" className="card stack">
        <p>{`Delete the collection “${title}”? Its link will stop working.`}</p>
        {fileCount > 0 ? (
          <label>
            <input type="checkbox" name="files" value="delete" />
            {` Also delete its ${counted(fileCount, 'file')} (their own links stop working too). Otherwise they stay in My files.`}
          </label>
        ) : null}
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

// Its own boundary, so that the error page after the POST still shows the signed-in header.
export function ErrorBoundary() {
  return <ErrorPage />;
}
