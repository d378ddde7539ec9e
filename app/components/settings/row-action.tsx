import { Form } from '@remix-run/react';

/** A one-button form acting on one row of a settings list (revoke a token, log out a session). */
export function RowAction({
  intent,
  id,
  label,
  ariaLabel,
}: {
  intent: string;
  id: string;
  label: string;
  ariaLabel: string;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      <button type="submit" className="danger small" aria-label={ariaLabel}>
        {label}
      </button>
    </Form>
  );
}
