// An invitation, `/invite/<code>` (ADR 0086): whoever opens it chooses a username and a password
// and gets an account, signed in on their files. A code that names no invitation (or any while
// REGISTRATION is off) is a 404; one used up, expired or revoked says which, with 410.
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { NewAccountForm } from '~/components/accounts/new-account-form';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LocalTime } from '~/components/local-time';
import { throwPageError } from '~/utils/errors.server';
import { readForm } from '~/utils/form.server';
import { makeOwnAccount } from '~/utils/new-account.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Make your account') }];

// The link is a secret: never kept by a cache (the site's Referrer-Policy, same-origin, keeps
// it from other sites; `no-referrer` would make Chromium send the form with `Origin: null`,
// which the cross-site check refuses).
export const headers: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  const retryAfter = actionHeaders.get('Retry-After') ?? loaderHeaders.get('Retry-After');
  if (retryAfter) headers.set('Retry-After', retryAfter);
  return headers;
};

export async function loader({ params, context }: LoaderFunctionArgs) {
  try {
    const invitation = await context.services.invitations.openInvitation(context.ctx, params.code ?? '');
    return data(
      {
        expiresAt: invitation.expiresAt,
        admin: invitation.admin,
        siteName: context.ctx.config.siteName,
        signedInAs: context.ctx.user?.username ?? null,
      },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const form = await readForm(request);
  return makeOwnAccount(context, form, (input) =>
    context.services.invitations.acceptInvitation(context.ctx, params.code ?? '', input),
  );
}

export default function Invitation() {
  const { expiresAt, admin, siteName, signedInAs } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <main className="narrow">
      <h1>Make your account</h1>
      <p>
        {`You are invited to ${siteName}${admin ? ', as an admin' : ''}. Choose a username and a password; this link works until `}
        <LocalTime iso={expiresAt} />.
      </p>
      {signedInAs ? (
        <p className="muted">{`You are signed in as ${signedInAs}: making an account signs you in as the new one.`}</p>
      ) : null}
      <NewAccountForm error={answer?.error ?? null} username={answer?.username ?? ''} />
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}
