import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { useActionData, useLoaderData } from '@remix-run/react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { ApiTokensSection } from '~/components/settings/api-tokens-section';
import type { SettingsResult, SettingsSection } from '~/components/settings/form-result';
import { PasswordSection } from '~/components/settings/password-section';
import { SessionsSection } from '~/components/settings/sessions-section';
import { pageErrorFrom } from '~/utils/errors.server';
import { CHANGE_PASSWORD_LABELS, inFormWords, NEW_TOKEN_LABELS, type FieldLabels } from '~/utils/form-errors';
import { readForm } from '~/utils/form.server';
import { requireUserPage } from '~/utils/session.server';

export const meta: MetaFunction = ({ error }) => (error ? errorMeta(error) : [{ title: 'Settings · File sharing' }]);

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const [tokens, sessions] = [await services.apiTokens.listApiTokens(ctx), await services.sessions.listSessions(ctx)];
  return { tokens, sessions, now: ctx.clock.now() };
}

const SECTION_OF_INTENT: Record<string, SettingsSection> = {
  'create-token': 'tokens',
  'revoke-token': 'tokens',
  'change-password': 'password',
  'revoke-session': 'sessions',
  'revoke-all-sessions': 'sessions',
};

/** The labels of each form, for its refusals (the services' messages name the fields). */
const LABELS_OF_INTENT: Record<string, FieldLabels> = {
  'create-token': NEW_TOKEN_LABELS,
  'change-password': CHANGE_PASSWORD_LABELS,
};

export async function action({ request, context }: ActionFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const form = await readForm(request);
  const intent = String(form.get('intent') ?? '');
  const section = SECTION_OF_INTENT[intent];
  if (!section)
    return data<SettingsResult>(
      { section: 'tokens', error: 'Unknown form.', notice: null, created: null },
      { status: 400 },
    );
  const answer = (notice: string | null, created: SettingsResult['created'] = null, status = 200) =>
    data<SettingsResult>({ section, error: null, notice, created }, { status });
  // Logged out of the session this page runs in: its cookie goes, and so does the page.
  const toLogin = () =>
    redirect('/login', { headers: { 'Set-Cookie': context.http.clearedSessionCookie(ctx.config) } });
  try {
    switch (intent) {
      case 'create-token': {
        const days = form.get('expiresInDays');
        const created = await services.apiTokens.createApiToken(ctx, {
          name: form.get('name') ?? '',
          expiresInDays: typeof days === 'string' && days !== '' ? days : null,
        });
        return answer(null, { token: created.token, name: created.apiToken.name }, 201);
      }
      case 'revoke-token':
        await services.apiTokens.revokeApiToken(ctx, String(form.get('id') ?? ''));
        return answer('The token was revoked: it no longer works.');
      case 'change-password': {
        const { otherSessionsRevoked } = await services.users.changeOwnPassword(ctx, {
          currentPassword: form.get('currentPassword') ?? '',
          newPassword: form.get('newPassword') ?? '',
          confirmPassword: form.get('confirmPassword') ?? '',
        });
        const others =
          otherSessionsRevoked === 1 ? '1 other session was' : `${otherSessionsRevoked} other sessions were`;
        return answer(`Your password was changed. ${others} logged out.`);
      }
      case 'revoke-session': {
        const { wasCurrent } = await services.sessions.revokeSession(ctx, String(form.get('id') ?? ''));
        return wasCurrent ? toLogin() : answer('The session was logged out.');
      }
      default:
        await services.sessions.revokeAllSessions(ctx);
        return toLogin();
    }
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    // The new-token form comes back as it was typed; the password forms never carry a password back.
    const typed = (name: string) => String(form.get(name) ?? '').slice(0, 200);
    const sentToken = intent === 'create-token' ? { name: typed('name'), expiresInDays: typed('expiresInDays') } : null;
    return data<SettingsResult>(
      { section, error: inFormWords(message, LABELS_OF_INTENT[intent] ?? {}), notice: null, created: null, sentToken },
      { status },
    );
  }
}

export default function Settings() {
  const { tokens, sessions, now } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <main className="stack">
      <h1>Settings</h1>
      <ApiTokensSection tokens={tokens} now={now} result={result} />
      <PasswordSection result={result} />
      <SessionsSection sessions={sessions} result={result} />
    </main>
  );
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
