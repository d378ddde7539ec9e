import { Form } from '@remix-run/react';
import { useFormSentInPlace } from '~/utils/in-place';
import { ShareLink } from '~/components/share-link';
import type { WebhooksResult } from './webhooks-section';

/** The events a webhook can take, as the form offers them. */
const EVENT_CHOICES = [
  ['file.uploaded', 'A file is uploaded'],
  ['file.downloaded', 'A file is downloaded'],
  ['file.deleted', 'A file is deleted'],
  ['file.expired', 'A link expires or uses up its downloads'],
  ['request.received', 'A file arrives through a file request'],
] as const;

/** A webhook just added: its signing secret, shown this once. */
export function NewWebhook({ created }: { created: NonNullable<WebhooksResult['created']> }) {
  return (
    <div className="new-token stack" role="status">
      <p>
        <strong>{`Webhook to ${created.url} added.`}</strong> Copy its signing secret now: it is not shown again.
      </p>
      <ShareLink url={created.secret} label="Signing secret" copyLabel="Copy secret" />
    </div>
  );
}

/**
 * The add-webhook form. With JavaScript it is given to `onAdd` (an in-place call): once added it
 * empties, as a page drawn anew without JavaScript is; a refused one keeps what was typed.
 */
export function NewWebhookForm({
  created,
  sent,
  onAdd,
}: {
  created: WebhooksResult['created'];
  sent: WebhooksResult['sent'];
  onAdd: (form: FormData) => void;
}) {
  const form = useFormSentInPlace(created, onAdd);
  return (
    <Form method="post" className="stack webhook-form" ref={form.ref} onSubmit={form.onSubmit}>
      <input type="hidden" name="intent" value="add-webhook" />
      <label>
        <span>URL</span>
        <input
          name="url"
          type="url"
          required
          maxLength={2000}
          placeholder="https://example.com/hooks/files"
          defaultValue={sent?.url ?? ''}
        />
      </label>
      <fieldset>
        <legend>Events</legend>
        {EVENT_CHOICES.map(([value, label]) => (
          <label key={value} className="checkbox">
            <input
              type="checkbox"
              name="events"
              value={value}
              defaultChecked={sent ? sent.events.includes(value) : value === 'file.uploaded'}
            />
            <span>
              {label} (<code>{value}</code>)
            </span>
          </label>
        ))}
      </fieldset>
      <button type="submit">Add webhook</button>
    </Form>
  );
}
