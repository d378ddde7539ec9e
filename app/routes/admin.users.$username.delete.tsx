// Deleting an account from the console (ADR 0083): this page names what goes with it (its files
// and their bytes) and asks; its button deletes, and the list says so. To anyone but an admin it
// does not exist (404).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { AdminNav } from '~/components/admin/admin-nav';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { counted, formatBytes } from '~/utils/format';
import { throwPageError } from '~/utils/errors.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Delete a user · Admin') }];

export async function loader({ params, context }: LoaderFunctionArgs) {
  try {
    const user = await context.services.admin.describeAccount(context.ctx, params.username ?? '');
    return data({ user }, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

/** Deleted: back to the list, which says so. */
export async function action({ params, context }: ActionFunctionArgs) {
  const username = params.username ?? '';
  try {
    await context.services.admin.deleteAccount(context.ctx, username);
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
  return redirect(`/admin?deleted=${encodeURIComponent(username)}`, { status: 303 });
}

export default function DeleteAccount() {
  const { user } = useLoaderData<typeof loader>();
  return (
    <main className="admin narrow">
      <h1>Admin</h1>
      <AdminNav />
      <h2>{`Delete ${user.username}?`}</h2>
      <p>
        {`Their account goes, with ${counted(user.files, 'file')} (${formatBytes(user.bytes)}), every share link and collection of theirs, their file requests, unfinished uploads, API tokens and sessions. This cannot be undone.`}
      </p>
      <Form method="post" className="actions">
        <button type="submit" className="danger">
          {`Delete ${user.username}`}
        </button>
        <Link to="/admin">Keep {user.username}</Link>
      </Form>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}
