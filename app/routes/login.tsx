import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { data, redirect } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { ErrorPage, errorMeta } from '~/components/error-page';
import { pageErrorFrom } from '~/utils/errors.server';
import { loginErrorInWords } from '~/utils/form-errors';
import { readForm } from '~/utils/form.server';
import { safeRedirect } from '~/utils/safe-redirect';
import { pageTitle } from '~/utils/titles';

export const meta: MetaFunction = ({ error, matches }) =>
  error ? errorMeta(error, matches) : [{ title: pageTitle(matches, 'Log in') }];

// A document render takes its headers from here: pass the action's Retry-After on (429).
export const headers: HeadersFunction = ({ actionHeaders }) => {
  const headers = new Headers();
  const retryAfter = actionHeaders.get('Retry-After');
  if (retryAfter) headers.set('Retry-After', retryAfter);
  // The code step names the user: never kept by a cache.
  const cacheControl = actionHeaders.get('Cache-Control');
  if (cacheControl) headers.set('Cache-Control', cacheControl);
  return headers;
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (context.ctx.user) {
    throw redirect(safeRedirect(new URL(request.url).searchParams.get('redirectTo')));
  }
  const { config } = context.ctx;
  const url = new URL(request.url);
  // "Start again" from the second step: its cookie goes, the first step shows.
  if (url.searchParams.has('restart')) {
    const first = new URLSearchParams({ redirectTo: safeRedirect(url.searchParams.get('redirectTo')) });
    throw redirect(`/login?${first}`, { headers: { 'Set-Cookie': context.http.clearedCodeStepCookie(config) } });
  }
  // A first factor given, the code to enter: after a password, or back from the provider
  // (OIDC_REQUIRE_2FA=on, ADR 0044).
  const step = await context.http.openCodeStep(config, request.headers.get('cookie'));
  const codeStepUser = step ? await context.services.oidcSignIn.codeStepUsername(context.ctx, step) : null;
  return {
    passwordLogin: config.passwordLogin,
    openRegistration: config.registration === 'open' && config.passwordLogin,
    provider: config.oidc ? { name: config.oidc.displayName } : null,
    pendingCodeStep: codeStepUser ? { username: codeStepUser } : null,
  };
}

type Context = ActionFunctionArgs['context'];

/** A new session's cookie, and the notice of wrong codes the next page shows once (ADR 0058). */
async function signedInHeaders(
  context: Context,
  session: Awaited<ReturnType<Context['services']['sessions']['login']>>,
): Promise<Headers> {
  const { config } = context.ctx;
  const headers = new Headers();
  headers.append('Set-Cookie', context.http.sessionCookie(config, session.token, session.maxAgeSeconds));
  if (session.wrongCodes) {
    const notice = { userId: session.user.id, wrongCodes: session.wrongCodes.count, lastAt: session.wrongCodes.lastAt };
    headers.append('Set-Cookie', await context.http.signInNoticeCookie(config, notice));
  }
  return headers;
}

/** The code of the second step: the signed step in its cookie says who, the code finishes the sign-in. */
async function codeStepAction(request: Request, context: Context, code: unknown) {
  const { config } = context.ctx;
  // No step, one too old, or one that has opened its session already (ADR 0058).
  const startAgain = () =>
    data(
      {
        error: 'This sign-in took too long or was finished already: start again.',
        username: '',
        codeStep: false,
      },
      { status: 400, headers: { 'Set-Cookie': context.http.clearedCodeStepCookie(config) } },
    );
  const step = await context.http.openCodeStep(config, request.headers.get('cookie'));
  if (!step) return startAgain();
  try {
    const session = await context.services.oidcSignIn.finishWithCode(context.ctx, step, code);
    const headers = await signedInHeaders(context, session);
    headers.append('Set-Cookie', context.http.clearedCodeStepCookie(config));
    return redirect(safeRedirect(step.redirectTo), { headers });
  } catch (error) {
    if (context.http.isSignInStepFinished(error)) return startAgain();
    const { status, message } = pageErrorFrom(context, error);
    const username = (await context.services.oidcSignIn.codeStepUsername(context.ctx, step)) ?? '';
    if (context.http.isTwoFactorRequired(error)) {
      // A sentence, as the step's other words are (the API's error has no full stop).
      const sentence = message.endsWith('.') ? message : `${message}.`;
      return data({ error: sentence, username, codeStep: true }, { status, headers: { 'Cache-Control': 'no-store' } });
    }
    const headers: HeadersInit = {};
    if (context.http.isAppError(error) && error.retryAfterSeconds !== undefined) {
      headers['Retry-After'] = String(error.retryAfterSeconds);
    }
    return data({ error: loginErrorInWords(status, message), username, codeStep: true }, { status, headers });
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readForm(request);
  if (form.get('step') === 'code') return codeStepAction(request, context, form.get('code'));
  const redirectTo = safeRedirect(form.get('redirectTo'));
  const username = form.get('username');
  try {
    const session = await context.services.sessions.login(context.ctx, {
      username,
      password: form.get('password'),
      code: form.get('code') ?? undefined,
    });
    return redirect(redirectTo, { headers: await signedInHeaders(context, session) });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    // The password was right: the second step asks for the code, a signed cookie saying whose
    // password was checked (the password itself goes no further).
    const codeStepUser = context.http.codeStepUserOf(error);
    if (codeStepUser !== null) {
      const stepCookie = await context.http.codeStepCookie(context.ctx.config, {
        userId: codeStepUser,
        redirectTo,
        method: 'password',
      });
      return data(
        { error: null, username: String(username ?? ''), codeStep: true },
        { status, headers: { 'Cache-Control': 'no-store', 'Set-Cookie': stepCookie } },
      );
    }
    // A wrong code sent with the password in one form (a script's way): refused in place.
    if (context.http.isTwoFactorRequired(error)) {
      return data(
        { error: message, username: String(username ?? ''), codeStep: false },
        { status, headers: { 'Cache-Control': 'no-store' } },
      );
    }
    const headers: HeadersInit = {};
    if (context.http.isAppError(error) && error.retryAfterSeconds !== undefined) {
      headers['Retry-After'] = String(error.retryAfterSeconds);
    }
    return data(
      {
        error: loginErrorInWords(status, message),
        username: typeof username === 'string' ? username : '',
        codeStep: false,
      },
      { status, headers },
    );
  }
}

export default function Login() {
  const { passwordLogin, openRegistration, provider, pendingCodeStep } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle';
  // After a refused attempt (with JavaScript the form stays on the page): an empty password
  // field with the cursor in it, ready for the next try. Without JavaScript the new page does that.
  const password = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!actionData?.error || !password.current) return;
    password.current.value = '';
    password.current.focus();
  }, [actionData]);
  const redirectTo = searchParams.get('redirectTo') ?? '/files';
  if (actionData?.codeStep && actionData.username)
    return <CodeStep error={actionData.error} username={actionData.username} />;
  if (pendingCodeStep && !actionData) return <CodeStep error={null} username={pendingCodeStep.username} />;
  const providerButton = provider ? (
    // A link, not a form: the page's CSP (form-action 'self') would stop a form's redirect to the
    // provider. The browser itself goes there and back (no JavaScript needed).
    <p className={passwordLogin ? undefined : 'card'}>
      <a
        className={passwordLogin ? 'button secondary' : 'button'}
        href={`/auth/oidc/start?${new URLSearchParams({ redirectTo })}`}
      >
        {`Sign in with ${provider.name}`}
      </a>
    </p>
  ) : null;
  if (!passwordLogin) {
    return (
      <main className="narrow">
        <h1>Log in</h1>
        {actionData?.error ? (
          <p id="login-error" className="alert" role="alert">
            {actionData.error}
          </p>
        ) : null}
        {providerButton}
        {openRegistration ? (
          <p className="muted">
            No account yet? <Link to="/signup">Sign up</Link>.
          </p>
        ) : (
          <p className="muted">Accounts are created by the administrator of this service.</p>
        )}
      </main>
    );
  }
  return (
    <main className="narrow">
      <h1>Log in</h1>
      <Form method="post" className="card stack" aria-describedby={actionData?.error ? 'login-error' : undefined}>
        {actionData?.error ? (
          <p id="login-error" className="alert" role="alert">
            {actionData.error}
          </p>
        ) : null}
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <label>
          Username
          <input
            name="username"
            autoComplete="username"
            required
            // biome-ignore lint/a11y/noAutofocus: the sign-in page has one task, and this field starts it
            autoFocus
            defaultValue={actionData?.username ?? ''}
            maxLength={64}
          />
        </label>
        <label>
          Password
          <input ref={password} name="password" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </Form>
      {providerButton}
      {openRegistration ? (
        <p className="muted">
          No account yet? <Link to="/signup">Sign up</Link>.
        </p>
      ) : (
        <p className="muted">Accounts are created by the administrator of this service.</p>
      )}
    </main>
  );
}

/**
 * The second step of a login with two-factor codes on: the code (or a recovery code), after a
 * password or the provider; a signed cookie says whose first factor was right.
 */
function CodeStep({ error, username }: { error: string | null; username: string }) {
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle';
  const actionData = useActionData<typeof action>();
  // After a refused code (with JavaScript the step stays on the page): an empty field with the
  // cursor in it, for the next code. Without JavaScript the new page does that.
  const codeField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!actionData?.error || !codeField.current) return;
    codeField.current.value = '';
    codeField.current.focus();
  }, [actionData]);
  return (
    <main className="narrow">
      <h1>Log in</h1>
      <Form method="post" className="card stack" aria-describedby={error ? 'login-error' : undefined}>
        {error ? (
          <p id="login-error" className="alert" role="alert">
            {error}
          </p>
        ) : null}
        <p>Enter the code your authenticator app shows for {username}, or one of your recovery codes.</p>
        <input type="hidden" name="redirectTo" value={searchParams.get('redirectTo') ?? '/files'} />
        <input type="hidden" name="step" value="code" />
        <label>
          Two-factor code
          <input
            ref={codeField}
            name="code"
            autoComplete="one-time-code"
            // Recovery codes have letters: no capitals or corrections added by a phone's keyboard.
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
            // biome-ignore lint/a11y/noAutofocus: this step of the login asks for this one field
            autoFocus
            maxLength={32}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        <p>
          <a
            href={`/login?${new URLSearchParams({ restart: '1', redirectTo: searchParams.get('redirectTo') ?? '/files' })}`}
          >
            Start again
          </a>
        </p>
      </Form>
    </main>
  );
}

// Its own boundary, so that an error thrown by the action still shows the signed-in header
// (app/components/error-page.tsx).
export function ErrorBoundary() {
  return <ErrorPage />;
}
