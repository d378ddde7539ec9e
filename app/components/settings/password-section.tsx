import { Form } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { FormResult, type SettingsResult } from './form-result';

/** Current password, then the new one twice. Other sessions are logged out; this one stays. */
export function PasswordSection({ result }: { result: SettingsResult | undefined }) {
  const form = useRef<HTMLFormElement>(null);
  // With JavaScript the page is not reloaded: empty the fields once the change is made.
  useEffect(() => {
    if (result?.section === 'password' && result.notice) form.current?.reset();
  }, [result]);
  return (
    <section className="card stack" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <FormResult result={result} section="password" />
      <Form method="post" className="token-form" ref={form}>
        <input type="hidden" name="intent" value="change-password" />
        <label>
          <span>Current password</span>
          <input type="password" name="currentPassword" autoComplete="current-password" required />
        </label>
        <label>
          <span>New password</span>
          <input type="password" name="newPassword" autoComplete="new-password" required minLength={8} />
        </label>
        <label>
          <span>New password again</span>
          <input type="password" name="confirmPassword" autoComplete="new-password" required minLength={8} />
        </label>
        <button type="submit">Change password</button>
      </Form>
      <p className="muted">At least 8 characters. Your other sessions are logged out; API tokens keep working.</p>
    </section>
  );
}
