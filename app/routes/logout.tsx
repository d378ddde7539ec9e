import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node';
import { redirect } from '@remix-run/node';
import { Form } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';

export const meta: MetaFunction = ({ error }) => (error ? errorMeta(error) : [{ title: 'Log out · File sharing' }]);

// GET only asks: a link or a prefetch must never log anyone out .
export default function Logout() {
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
