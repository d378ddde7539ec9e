import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form, Link, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Log out') }];

export function loader({ context }: LoaderFunctionArgs) {
  return { loggedIn: context.ctx.user !== null };
}

// GET only asks: a link or a prefetch must never log anyone out. Nobody to log out: it says so.
export default function Logout() {
  const { loggedIn } = useLoaderData<typeof loader>();
  if (!loggedIn) {
    return (
      <main className="narrow">
        <h1>Log out</h1>
        <div className="card stack">
          <p>You are not logged in.</p>
          <p>
            <Link to="/login">Log in</Link>
          </p>
        </div>
      </main>
    );
  }
  return (
    <main className="narrow">
      <h1>Log out</h1>
      <Form method="post" className="card stack">
        <p>Log out of this browser? Your files stay where they are.</p>
        <button type="submit">Log out</button>
      </Form>
    </main>
  );
}

export async function action({ context }: ActionFunctionArgs) {
  await context.services.sessions.logout(context.ctx, context.sessionToken);
  return redirect('/login', { headers: { 'Set-Cookie': context.http.clearedSessionCookie(context.ctx.config) } });
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
