import { Form, useNavigation } from '@remix-run/react';

/**
 * The form that makes one's own account, on an invitation's page and on /signup (ADR 0086): a
 * username and a password, typed twice. A refusal comes back above it with the username kept.
 */
export function NewAccountForm({ error, username }: { error: string | null; username: string }) {
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle';
  return (
    <Form method="post" className="card stack" aria-describedby={error ? 'new-account-error' : undefined}>
      {error ? (
        <p id="new-account-error" className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <label>
        Username
        <input
          name="username"
          autoComplete="username"
          required
          // biome-ignore lint/a11y/noAutofocus: the page has one task, and this field starts it
          autoFocus
          defaultValue={username}
          maxLength={64}
        />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="new-password" required minLength={8} />
      </label>
      <label>
        Password again
        <input name="passwordAgain" type="password" autoComplete="new-password" required minLength={8} />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Making your account…' : 'Make my account'}
      </button>
    </Form>
  );
}

/** The two passwords typed differ: said before anything is sent on. */
export function passwordsDiffer(form: FormData): boolean {
  return form.get('password') !== form.get('passwordAgain');
}
