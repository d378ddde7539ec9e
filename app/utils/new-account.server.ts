import { data, redirect } from '@remix-run/node';
import type { AppLoadContext } from '@remix-run/node';
import { passwordsDiffer } from '~/components/accounts/new-account-form';
import { pageErrorFrom } from '~/utils/errors.server';

type Session = Awaited<ReturnType<AppLoadContext['services']['invitations']['signUp']>>;

/**
 * What an invitation's page and /signup do with their form: the account made by `make`, then
 * signed in on /files; a refusal back on the form with its status (429 with its Retry-After),
 * and a link gone meanwhile as its error page (410).
 */
export async function makeOwnAccount(
  context: AppLoadContext,
  form: FormData,
  make: (input: { username: unknown; password: unknown }) => Promise<Session>,
) {
  const username = typeof form.get('username') === 'string' ? String(form.get('username')) : '';
  if (passwordsDiffer(form))
    return data({ error: 'The two passwords differ: type the same one twice.', username }, { status: 400 });
  try {
    const session = await make({ username: form.get('username'), password: form.get('password') });
    const cookie = context.http.sessionCookie(context.ctx.config, session.token, session.maxAgeSeconds);
    return redirect('/files', { headers: { 'Set-Cookie': cookie } });
  } catch (error) {
    const { status, message } = pageErrorFrom(context, error);
    if (status === 404 || status === 410) throw data({ message }, { status });
    const headers: Record<string, string> = {};
    if (context.http.isAppError(error) && error.retryAfterSeconds !== undefined)
      headers['Retry-After'] = String(error.retryAfterSeconds);
    return data({ error: message.endsWith('.') ? message : `${message}.`, username }, { status, headers });
  }
}
