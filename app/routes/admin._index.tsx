// The admin console's accounts, `/admin` (ADR 0083): every user with what they store, searched,
// sorted and 50 to a page, and what an admin does to one (quota, disable, the admin right,
// sign out everywhere, two-factor reset; deleting asks first on a page of its own), and a form
// for a new account. Plain forms: the same with JavaScript on or off. To anyone but an admin
// the address does not exist (404).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react';
import { AccountsTable, inPlace, listHref } from '~/components/admin/accounts-table';
import { useAdminCalls } from '~/components/admin/use-admin-calls';
import { AdminNav } from '~/components/admin/admin-nav';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { ADMIN_INTENTS, type AccountCalls, runAccountForm } from '~/utils/admin-actions';
import { counted } from '~/utils/format';
import { pageErrorFrom, throwPageError } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Users · Admin') }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx, services } = context;
  const url = new URL(request.url);
  try {
    const list = await services.admin.listAccounts(ctx, Object.fromEntries(url.searchParams));
    // Back from a deletion (admin.users.$username.delete.tsx): said while nobody has that name.
    const deleted = url.searchParams.get('deleted');
    const gone =
      deleted &&
      (await services.admin.describeAccount(ctx, deleted).then(
        () => false,
        (error: unknown) => {
          if (context.http.isAppError(error) && error.code === 'NOT_FOUND') return true;
          throw error;
        },
      ));
    return data({ ...list, deleted: gone ? deleted : null }, { headers: { 'Cache-Control': 'private, no-store' } });
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

type ActionResult = { notice: string; error: null } | { notice: null; error: string };

/** The services, in the shapes of the page's /trpc calls (app/utils/admin-actions.ts). */
function serviceCalls({ ctx, services }: ActionFunctionArgs['context']): AccountCalls {
  const { admin } = services;
  return {
    create: async (input) => ({ user: await admin.createAccount(ctx, input) }),
    setQuota: async ({ username, quota }) => ({ user: await admin.setAccountQuota(ctx, username, quota) }),
    setDisabled: ({ username, disabled }) => admin.setAccountDisabled(ctx, username, disabled),
    setAdmin: ({ username, admin: on }) => admin.setAccountAdmin(ctx, username, on),
    signOut: ({ username }) => admin.signAccountOutEverywhere(ctx, username),
    resetTwoFactor: ({ username }) => admin.resetAccountTwoFactor(ctx, username),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readForm(request);
  // Anyone but an admin: the page does not exist, whatever was sent.
  if (!(await context.services.admin.isAdmin(context.ctx))) throw data({ message: 'Page not found.' }, { status: 404 });
  const intent = String(form.get('intent') ?? '');
  if (!ADMIN_INTENTS.includes(intent)) throw data({ message: 'Unknown form.' }, { status: 400 });
  try {
    const notice = await runAccountForm(form, serviceCalls(context));
    return data<ActionResult>({ notice, error: null });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    return data<ActionResult>({ notice: null, error: message }, { status });
  }
}

export default function AdminUsers() {
  const { accounts, total, page, pages, query, deleted } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const { answer, act } = useAdminCalls();
  const result = answer ?? posted;
  const notice = result?.notice ?? (deleted ? `${deleted} was deleted, with everything they stored.` : null);
  // Handlers run only once the page's JavaScript runs: until then, and without it, forms are posted.
  const onAct = act;
  return (
    <main className="admin">
      <h1>Admin</h1>
      <AdminNav />
      {notice ? (
        <p role="status" className="notice">
          {notice}
        </p>
      ) : null}
      {result?.error ? (
        <p role="alert" className="error">
          {result.error}
        </p>
      ) : null}
      <section aria-labelledby="accounts-heading">
        <h2 id="accounts-heading">Users</h2>
        <Form method="get" className="search-form">
          <label>
            Search usernames
            <input type="search" name="q" defaultValue={query.q} maxLength={64} />
          </label>
          {query.sort !== 'username' ? <input type="hidden" name="sort" value={query.sort} /> : null}
          {query.order !== 'asc' ? <input type="hidden" name="order" value={query.order} /> : null}
          <button type="submit" className="secondary">
            Search
          </button>
        </Form>
        <p className="muted">
          {query.q ? `${counted(total, 'account')} match “${query.q}”.` : `${counted(total, 'account')} in all.`}
        </p>
        {accounts.length ? (
          <AccountsTable accounts={accounts} query={query} onAct={onAct} />
        ) : (
          <p>No account matches.</p>
        )}
        {pages > 1 ? (
          <nav aria-label="Pages of accounts" className="pager">
            {page > 1 ? <Link to={listHref(query, { page: page - 1 })}>Previous</Link> : null}
            <span>{`Page ${page} of ${pages}`}</span>
            {page < pages ? <Link to={listHref(query, { page: page + 1 })}>Next</Link> : null}
          </nav>
        ) : null}
      </section>
      <section aria-labelledby="new-account-heading">
        <h2 id="new-account-heading">New user</h2>
        <Form method="post" className="stacked" onSubmit={inPlace(onAct)}>
          <input type="hidden" name="intent" value="create" />
          <label>
            Username
            <input name="newUsername" required maxLength={64} autoComplete="off" />
          </label>
          <label>
            Password
            <input name="password" type="password" required minLength={8} autoComplete="new-password" />
          </label>
          <label className="checkbox">
            <input type="checkbox" name="admin" /> An admin
          </label>
          <button type="submit">Create user</button>
        </Form>
      </section>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}
