import { Form } from '@remix-run/react';
import { type Confirmation, ConfirmedForm } from '~/components/confirm-dialog';

/** A one-button form acting on one row of a settings list (revoke a token, log out a session). */
export function RowAction({
  intent,
  id,
  label,
  ariaLabel,
  confirmation,
  onConfirmed,
}: {
  intent: string;
  id: string;
  label: string;
  ariaLabel: string;
  /** Asked first, with JavaScript (a revoke or a removal that cannot be undone). */
  confirmation?: Confirmation;
  /** With JavaScript, once confirmed: the action done in place instead of sending the form. */
  onConfirmed?: () => void;
}) {
  const fields = (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      <button type="submit" className="danger small" aria-label={ariaLabel}>
        {label}
      </button>
    </>
  );
  return confirmation ? (
    <ConfirmedForm method="post" confirmation={confirmation} onConfirmed={onConfirmed}>
      {fields}
    </ConfirmedForm>
  ) : (
    <Form method="post">{fields}</Form>
  );
}
