// The admin console's invitations, `/admin/invitations` (ADR 0086): a form that makes an
// invitation link (its lifetime, how many accounts it makes, their quota, admin or not), shown
// once, and every invitation with where it stands, the open ones revocable. Plain forms without
// JavaScript; with it, the same through /trpc in place. To anyone but an admin: 404.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { inPlace } from '~/components/admin/accounts-table';
import { AdminNav } from '~/components/admin/admin-nav';
import { useInvitationCalls } from '~/components/admin/use-invitation-calls';
import { CopyButton } from '~/components/copy-button';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { LocalTime } from '~/components/local-time';
import { pageErrorFrom, throwPageError } from '~/utils/errors.server';
import { formatLimit } from '~/utils/format';
import { readForm } from '~/utils/form.server';
import {
  INVITATION_INTENTS,
  type InvitationAnswer,
  type InvitationCalls,
  runInvitationForm,
} from '~/utils/invitation-actions';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Invitations · Admin') }];

export async function loader({ context }: LoaderFunctionArgs) {
  const { ctx, services } = context;
  try {
    const invitations = await services.invitations.listInvitations(ctx);
    return data(
      { invitations, registration: ctx.config.registration, passwordLogin: ctx.config.passwordLogin },
      { headers: { 'Cache-Control': 'private, no-store' } },
    );
  } catch (error) {
    throwPageError(context, error, { 404: 'Page not found.' });
  }
}

/** The services, in the shapes of the page's /trpc calls (app/utils/invitation-actions.ts). */
function serviceCalls({ ctx, services }: ActionFunctionArgs['context']): InvitationCalls {
  return {
    create: (input) => services.invitations.createInvitation(ctx, input),
    revoke: async ({ id }) => ({ invitation: await services.invitations.revokeInvitation(ctx, id) }),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readForm(request);
  if (!(await context.services.admin.isAdmin(context.ctx))) throw data({ message: 'Page not found.' }, { status: 404 });
  if (!INVITATION_INTENTS.includes(String(form.get('intent') ?? '')))
    throw data({ message: 'Unknown form.' }, { status: 400 });
  try {
    return data<InvitationAnswer>(await runInvitationForm(form, serviceCalls(context)), {
      headers: { 'Cache-Control': 'no-store' },
    });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    return data<InvitationAnswer>({ notice: null, link: null, error: message }, { status });
  }
}

function quotaText(invitation: { quotaSource: 'own' | 'default'; quotaBytes: number | null }): string {
  if (invitation.quotaSource === 'default') return 'the default';
  return invitation.quotaBytes === null ? 'unlimited' : formatLimit(invitation.quotaBytes);
}

export default function AdminInvitations() {
  const { invitations, registration, passwordLogin } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const { answer, act } = useInvitationCalls();
  const result = answer ?? posted;
  const off = registration === 'off' || !passwordLogin;
  return (
    <main className="admin">
      <h1>Admin</h1>
      <AdminNav />
      {result?.notice ? (
        <div role="status" className="notice">
          <p>{result.notice}</p>
          {result.link ? (
            <p className="invitation-link">
              <code>{result.link}</code> <CopyButton text={result.link} />
            </p>
          ) : null}
        </div>
      ) : null}
      {result?.error ? (
        <p role="alert" className="error">
          {result.error}
        </p>
      ) : null}
      <section aria-labelledby="new-invitation-heading">
        <h2 id="new-invitation-heading">Invite someone</h2>
        {off ? (
          <p>
            {registration === 'off'
              ? 'Invitations are turned off: set REGISTRATION=invite (or open) where the service runs to send them.'
              : 'Invitations make accounts that sign in with a password, which is turned off here (PASSWORD_LOGIN=off).'}
          </p>
        ) : (
          <Form method="post" className="stacked" onSubmit={inPlace(act)}>
            <input type="hidden" name="intent" value="invite" />
            <label>
              Days it works
              <input name="expiresInDays" type="number" min={1} max={365} defaultValue={7} required />
            </label>
            <label>
              Accounts it makes
              <input name="maxUses" type="number" min={1} max={1000} defaultValue={1} required />
            </label>
            <label>
              Their quota
              <input name="quota" defaultValue="default" placeholder="2GB, none or default" maxLength={32} />
            </label>
            <label className="checkbox">
              <input type="checkbox" name="admin" /> Admins
            </label>
            <button type="submit">Make an invitation link</button>
          </Form>
        )}
      </section>
      <section aria-labelledby="invitations-heading">
        <h2 id="invitations-heading">Invitations</h2>
        {invitations.length ? (
          <div className="table-wrap">
            <table className="accounts invitations">
              <thead>
                <tr>
                  <th scope="col">Made</th>
                  <th scope="col">By</th>
                  <th scope="col">Works until</th>
                  <th scope="col">Used</th>
                  <th scope="col">Quota</th>
                  <th scope="col">Admins</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invitations.map((invitation) => (
                  <tr key={invitation.id}>
                    <td className="name">
                      <LocalTime iso={invitation.createdAt} />
                    </td>
                    <td data-label="By">{invitation.createdBy ?? 'the command line'}</td>
                    <td data-label="Works until">
                      <LocalTime iso={invitation.expiresAt} />
                    </td>
                    <td data-label="Used">{`${invitation.uses} of ${invitation.maxUses}`}</td>
                    <td data-label="Quota">{quotaText(invitation)}</td>
                    <td data-label="Admins">{invitation.admin ? 'yes' : 'no'}</td>
                    <td data-label="State">{invitation.state}</td>
                    <td>
                      {invitation.state === 'open' ? (
                        <Form method="post" onSubmit={inPlace(act)}>
                          <input type="hidden" name="intent" value="revoke" />
                          <input type="hidden" name="id" value={invitation.id} />
                          <button type="submit" className="secondary small">
                            Revoke
                          </button>
                        </Form>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No invitation yet.</p>
        )}
      </section>
    </main>
  );
}

export function ErrorBoundary() {
  return <ErrorPage />;
}
