import { Form } from '@remix-run/react';

/**
 * A protected link's page (a file's or a collection's): the password form, and nothing about
 * what it protects. It posts to the page's own action, so it works without JavaScript.
 */
export function UnlockForm({ heading, error }: { heading: string; error: string | null }) {
  return (
    <main className="narrow">
      <h1>{heading}</h1>
      <Form method="post" className="card stack">
        <input type="hidden" name="intent" value="unlock" />
        {error ? (
          <p className="alert" role="alert">
            {error}
          </p>
        ) : null}
        <label>
          <span>Password</span>
          <input
            type="password"
            name="password"
            required
            autoComplete="off"
            // biome-ignore lint/a11y/noAutofocus: after a wrong password, the field to type it again is the one task left
            autoFocus={Boolean(error)}
          />
        </label>
        <button type="submit">Open</button>
      </Form>
    </main>
  );
}
