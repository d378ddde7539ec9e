import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, useActionData, useLoaderData } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { ApiTokensSection } from '~/components/settings/api-tokens-section';
import { FormMessages, type SettingsResult, type SettingsSection } from '~/components/settings/form-result';
import { PasswordSection } from '~/components/settings/password-section';
import { SessionsSection } from '~/components/settings/sessions-section';
import { SignInsSection } from '~/components/settings/sign-ins-section';
import { WEBHOOK_INTENTS, WebhooksSection, type WebhooksResult } from '~/components/settings/webhooks-section';
import { pageErrorFrom } from '~/utils/errors.server';
import { CHANGE_PASSWORD_LABELS, inFormWords, NEW_TOKEN_LABELS, type FieldLabels } from '~/utils/form-errors';
import { readForm } from '~/utils/form.server';
import {
  DELIVERY_SENT_AGAIN,
  newTokenInput,
  newWebhookInput,
  TOKEN_REVOKED,
  WEBHOOK_REMOVED,
  webhookErrorInWords,
} from '~/utils/settings-forms';
import { qrCodeDataUrl } from '~/utils/qr-code.server';
import { requireUserPage } from '~/utils/session.server';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Settings') }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUserPage(context, request);
  const { ctx, services } = context;
  const [tokens, sessions] = [await services.apiTokens.listApiTokens(ctx), await services.sessions.listSessions(ctx)];
  const twoFactor = await services.twoFactor.twoFactorStatus(ctx);
  const webhooks = [];
  for (const webhook of await services.webhooks.listWebhooks(ctx))
    webhooks.push({ ...webhook, deliveries: await services.webhooks.listWebhookDeliveries(ctx, webhook.id) });
  const signIns = await services.activity.mySignIns(ctx, 10);
  return { tokens, sessions, twoFactor, webhooks, signIns, now: ctx.clock.now() };
}

/** Adding a webhook (its secret shown once), removing one, sending a delivery again. */
async function webhooksAction(context: ActionFunctionArgs['context'], intent: string, form: FormData) {
  const { ctx, services } = context;
  const answer = (result: Partial<WebhooksResult>, status = 200) =>
    data<WebhooksResult>({ section: 'webhooks', error: null, notice: null, created: null, ...result }, { status });
  const { url, events } = newWebhookInput(form);
  try {
    if (intent === 'add-webhook') {
      const { webhook, secret } = await services.webhooks.createWebhook(ctx, { url, events });
      return answer({ created: { url: webhook.url, secret } }, 201);
    }
    if (intent === 'delete-webhook') {
      await services.webhooks.deleteWebhook(ctx, String(form.get('id') ?? ''));
      return answer({ notice: WEBHOOK_REMOVED });
    }
    const id = String(form.get('id') ?? '');
    await services.webhooks.resendWebhookDelivery(ctx, id, String(form.get('deliveryId') ?? ''));
    return answer({ notice: DELIVERY_SENT_AGAIN });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    const sent = intent === 'add-webhook' ? { url: url.slice(0, 2000), events } : null;
    return answer({ error: webhookErrorInWords(message), sent }, status);
  }
}

/** What a form of the two-factor section answers: a secret begun, the recovery codes, or a message. */
interface TwoFactorResult {
  section: 'two-factor';
  error: string | null;
  notice: string | null;
  /** After "Set up": the secret to type in and its QR code (an SVG data URL). */
  begun: { secret: string; qrCode: string } | null;
  /** After the first code: the recovery codes, shown this once. */
  recoveryCodes: string[] | null;
}

const TWO_FACTOR_INTENTS = new Set(['begin-2fa', 'confirm-2fa', 'disable-2fa']);

async function twoFactorAction(context: ActionFunctionArgs['context'], intent: string, code: string) {
  const { ctx, services } = context;
  const answer = (result: Partial<TwoFactorResult>, status = 200) =>
    data<TwoFactorResult>(
      { section: 'two-factor', error: null, notice: null, begun: null, recoveryCodes: null, ...result },
      { status },
    );
  try {
    if (intent === 'begin-2fa') {
      const { secret, otpauthUri } = await services.twoFactor.beginTwoFactor(ctx);
      return answer({ begun: { secret, qrCode: await qrCodeDataUrl(otpauthUri) } });
    }
    if (intent === 'confirm-2fa') {
      const { recoveryCodes } = await services.twoFactor.confirmTwoFactor(ctx, { code });
      return answer({ notice: 'Two-factor codes are on.', recoveryCodes });
    }
    await services.twoFactor.disableTwoFactor(ctx, { code });
    return answer({ notice: 'Two-factor codes are off: your password alone logs you in.' });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    // A wrong first code keeps the set-up: the same QR code and secret, for another code (ADR 0063).
    const setUp = intent === 'confirm-2fa' ? await services.twoFactor.getTwoFactorSetUp(ctx) : null;
    const begun = setUp ? { secret: setUp.secret, qrCode: await qrCodeDataUrl(setUp.otpauthUri) } : null;
    return answer({ error: `${message}${message.endsWith('.') ? '' : '.'}`, begun }, status);
  }
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
  if (TWO_FACTOR_INTENTS.has(intent)) return twoFactorAction(context, intent, String(form.get('code') ?? ''));
  if (WEBHOOK_INTENTS.has(intent)) return webhooksAction(context, intent, form);
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
        const created = await services.apiTokens.createApiToken(ctx, newTokenInput(form));
        return answer(null, { token: created.token, name: created.apiToken.name }, 201);
      }
      case 'revoke-token':
        await services.apiTokens.revokeApiToken(ctx, String(form.get('id') ?? ''));
        return answer(TOKEN_REVOKED);
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
  const { tokens, sessions, twoFactor, webhooks, signIns, now } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const twoFactorResult = answer?.section === 'two-factor' ? (answer as TwoFactorResult) : undefined;
  const webhooksResult = answer?.section === 'webhooks' ? (answer as WebhooksResult) : undefined;
  const result =
    answer?.section === 'two-factor' || answer?.section === 'webhooks'
      ? undefined
      : (answer as SettingsResult | undefined);
  return (
    <main className="stack">
      <h1>Settings</h1>
      <ApiTokensSection tokens={tokens} now={now} result={result} />
      <PasswordSection result={result} />
      <TwoFactorSection enabled={twoFactor.enabled} left={twoFactor.recoveryCodesLeft} result={twoFactorResult} />
      <SessionsSection sessions={sessions} result={result} />
      <SignInsSection signIns={signIns} />
      <WebhooksSection webhooks={webhooks} result={webhooksResult} />
    </main>
  );
}

function CodeField() {
  return (
    <label>
      <span>Code from your app, or a recovery code</span>
      <input name="code" autoComplete="one-time-code" inputMode="text" required maxLength={32} />
    </label>
  );
}

/**
 * The set-up's first code. After a wrong one (with JavaScript the form stays on the page): an
 * empty field with the cursor in it, for the next code from the same secret.
 */
function FirstCodeField({ result }: { result: TwoFactorResult }) {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!result.error || !field.current) return;
    field.current.value = '';
    field.current.focus();
  }, [result]);
  return (
    <label>
      <span>Code from your app</span>
      <input ref={field} name="code" autoComplete="one-time-code" inputMode="numeric" required maxLength={8} />
    </label>
  );
}

/** Set up (a QR code and the secret, then a first code), the recovery codes once, and turning off. */
function TwoFactorSection({
  enabled,
  left,
  result,
}: {
  enabled: boolean;
  left: number;
  result: TwoFactorResult | undefined;
}) {
  return (
    <section className="card stack" aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor codes</h2>
      <FormMessages error={result?.error} notice={result?.notice} />
      {result?.recoveryCodes ? (
        <div className="stack">
          <p>
            Keep these recovery codes somewhere safe: each logs you in once instead of a code. They are shown only now.
          </p>
          <ul aria-label="Recovery codes">
            {result.recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {enabled ? (
        <>
          <p>
            On: logging in with your password also needs a code from your authenticator app. {left} recovery{' '}
            {left === 1 ? 'code is' : 'codes are'} left.
          </p>
          <Form method="post" className="token-form">
            <input type="hidden" name="intent" value="disable-2fa" />
            <CodeField />
            <button type="submit">Turn off</button>
          </Form>
        </>
      ) : result?.begun ? (
        <>
          <p>Scan this QR code with your authenticator app, or type the secret into it, then enter its first code.</p>
          <img src={result.begun.qrCode} alt="QR code of the secret" width={200} height={200} />
          <p>
            Secret: <code>{result.begun.secret}</code>
          </p>
          <Form method="post" className="token-form">
            <input type="hidden" name="intent" value="confirm-2fa" />
            <FirstCodeField result={result} />
            <button type="submit">Turn on</button>
          </Form>
        </>
      ) : (
        <>
          <p>Off. With two-factor codes on, logging in needs your password and a code from an authenticator app.</p>
          <Form method="post">
            <input type="hidden" name="intent" value="begin-2fa" />
            <button type="submit">Set up two-factor codes</button>
          </Form>
        </>
      )}
    </section>
  );
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
