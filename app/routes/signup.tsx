// Sign-up, `/signup` (ADR 0086): with REGISTRATION=open anyone makes an account here, a few per
// address in a while (the login throttle's counters); otherwise the address does not exist (404).
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Link, useActionData } from '@remix-run/react';
import { NewAccountForm } from '~/components/accounts/new-account-form';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { readForm } from '~/utils/form.server';
import { makeOwnAccount } from '~/utils/new-account.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Sign up') }];

export const headers: HeadersFunction = ({ actionHeaders }) => {
  const headers = new Headers();
  const retryAfter = actionHeaders.get('Retry-After');
  if (retryAfter) headers.set('Retry-After', retryAfter);
  return headers;
};

function requireOpenRegistration(context: LoaderFunctionArgs['context']): void {
  const { registration, passwordLogin } = context.ctx.config;
  if (registration !== 'open' || !passwordLogin) throw data({ message: 'Page not found.' }, { status: 404 });
}

export async function loader({ context }: LoaderFunctionArgs) {
  requireOpenRegistration(context);
  if (context.ctx.user) throw redirect('/files');
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireOpenRegistration(context);
  const form = await readForm(request);
  return makeOwnAccount(context, form, (input) => context.services.invitations.signUp(context.ctx, input));
}

export default function SignUp() {
  const answer = useActionData<typeof action>();
  return (
    <main className="narrow">
      <h1>Sign up</h1>
      <NewAccountForm error={answer?.error ?? null} username={answer?.username ?? ''} />
      <p className="muted">
        Have an account? <Link to="/login">Log in</Link>.
      </p>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}
