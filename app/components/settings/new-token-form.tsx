import { Form } from '@remix-run/react';
import { useFormSentInPlace } from '~/utils/in-place';
import { ShareLink } from '~/components/share-link';
import type { SettingsResult } from './form-result';

/** Lifetimes offered for a new token, in days ("" for none). */
const TOKEN_LIFETIMES = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['', 'No expiry'],
] as const;

/** A token just made: shown this once, with its ShareX configuration. */
export function NewToken({ created }: { created: NonNullable<SettingsResult['created']> }) {
  return (
    <div className="new-token stack" role="status">
      <p>
        <strong>{`Token “${created.name}” created.`}</strong> Copy it now: it is not shown again.
      </p>
      <ShareLink url={created.token} label="Your new API token" copyLabel="Copy token" />
      <Form method="post" action="/settings/sharex" reloadDocument>
        <input type="hidden" name="token" value={created.token} />
        <button type="submit" className="secondary">
          Download ShareX config (.sxcu)
        </button>
      </Form>
    </div>
  );
}

/**
 * The new-token form. With JavaScript it is given to `onCreate` (an in-place call) and the page
 * stays: the form empties once a token is made, ready for the next one, as a page drawn anew
 * without JavaScript is. (A refused form keeps what was typed.)
 */
export function NewTokenForm({
  created,
  sent,
  onCreate,
}: {
  created: SettingsResult['created'];
  sent: SettingsResult['sentToken'];
  onCreate: (form: FormData) => void;
}) {
  const form = useFormSentInPlace(created, onCreate);
  return (
    <Form method="post" className="token-form" ref={form.ref} onSubmit={form.onSubmit}>
      <input type="hidden" name="intent" value="create-token" />
      <label>
        <span>Name</span>
        <input
          name="name"
          required
          maxLength={100}
          placeholder="e.g. ShareX on my laptop"
          defaultValue={sent?.name ?? ''}
        />
      </label>
      <label>
        <span>Expires after</span>
        <select name="expiresInDays" defaultValue={sent?.expiresInDays ?? '90'}>
          {TOKEN_LIFETIMES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Create token</button>
    </Form>
  );
}
