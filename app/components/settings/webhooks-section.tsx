import { FormMessages } from './form-result';
import { Form } from '@remix-run/react';
import type { WebhookDeliveryDto, WebhookDto } from '../../../server/services/webhooks';
import { LocalTime } from '~/components/local-time';
import { ShareLink } from '~/components/share-link';
import { RowAction } from './row-action';

/** What a form of the webhooks section answers: an error, a notice, or a new endpoint's secret. */
export interface WebhooksResult {
  section: 'webhooks';
  error: string | null;
  notice: string | null;
  /** After "Add webhook": the endpoint's signing secret, shown this once. */
  created: { url: string; secret: string } | null;
  /** What a refused form had, shown again (a page without JavaScript is drawn anew). */
  sent?: { url: string; events: string[] } | null;
}

export const WEBHOOK_INTENTS = new Set(['add-webhook', 'delete-webhook', 'resend-webhook-delivery']);

/** The events a webhook can take, as the form offers them. */
const EVENT_CHOICES = [
  ['file.uploaded', 'A file is uploaded'],
  ['file.downloaded', 'A file is downloaded'],
  ['file.deleted', 'A file is deleted'],
  ['file.expired', 'A link expires or uses up its downloads'],
  ['request.received', 'A file arrives through a file request'],
] as const;

const STATUS_WORDS: Record<WebhookDeliveryDto['status'], string> = {
  pending: 'Waiting to be sent',
  delivered: 'Delivered',
  failed: 'Failed',
};

/** Deliveries shown per webhook. */
const SHOWN_DELIVERIES = 10;

/** Webhooks: added (the secret shown once), listed with their recent deliveries, removed; a delivery sent again. */
export function WebhooksSection({
  webhooks,
  result,
}: {
  webhooks: Array<WebhookDto & { deliveries: WebhookDeliveryDto[] }>;
  result: WebhooksResult | undefined;
}) {
  const sent = result?.sent ?? null;
  return (
    <section className="card stack" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="muted">
        Your server gets a signed JSON <code>POST</code> when something happens to your files. Check{' '}
        <code>X-Signature</code> with the secret (README: Webhooks); a retry has the same <code>X-Webhook-Id</code>.
      </p>
      <FormMessages error={result?.error} notice={result?.notice} />
      {result?.created ? (
        <div className="new-token stack" role="status">
          <p>
            <strong>{`Webhook to ${result.created.url} added.`}</strong> Copy its signing secret now: it is not shown
            again.
          </p>
          <ShareLink url={result.created.secret} label="Signing secret" copyLabel="Copy secret" />
        </div>
      ) : null}
      <Form method="post" className="stack webhook-form">
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
      {webhooks.length === 0 ? (
        <p className="muted">No webhooks yet.</p>
      ) : (
        webhooks.map((webhook) => (
          <div key={webhook.id} className="stack webhook" data-webhook-id={webhook.id}>
            <h3 className="webhook-url">{webhook.url}</h3>
            <p className="muted">
              {webhook.events.join(', ')} · added <LocalTime iso={webhook.createdAt} />
            </p>
            <RowAction intent="delete-webhook" id={webhook.id} label="Remove" ariaLabel={`Remove ${webhook.url}`} />
            {webhook.deliveries.length === 0 ? (
              <p className="muted">No deliveries yet.</p>
            ) : (
              <div className="table-wrap">
                <table className="webhook-deliveries">
                  <caption className="visually-hidden">{`Recent deliveries to ${webhook.url}`}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Status</th>
                      <th scope="col">Attempts</th>
                      <th scope="col">Last answer</th>
                      <th scope="col">Next attempt</th>
                      <th scope="col">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {webhook.deliveries.slice(0, SHOWN_DELIVERIES).map((delivery) => (
                      <tr key={delivery.id} data-delivery-id={delivery.id}>
                        <td className="event">
                          <code>{delivery.type}</code> <LocalTime iso={delivery.createdAt} />
                        </td>
                        <td data-label="Status">{STATUS_WORDS[delivery.status]}</td>
                        <td data-label="Attempts">{delivery.attempts}</td>
                        <td data-label="Last answer">
                          {delivery.lastStatusCode !== null
                            ? `HTTP ${delivery.lastStatusCode}`
                            : (delivery.lastError ?? '—')}
                        </td>
                        <td data-label="Next attempt">
                          {delivery.nextAttemptAt ? <LocalTime iso={delivery.nextAttemptAt} /> : '—'}
                        </td>
                        <td>
                          <Form method="post">
                            <input type="hidden" name="intent" value="resend-webhook-delivery" />
                            <input type="hidden" name="id" value={webhook.id} />
                            <input type="hidden" name="deliveryId" value={delivery.id} />
                            <button
                              type="submit"
                              className="secondary small"
                              aria-label={`Send ${delivery.type} again`}
                            >
                              Send again
                            </button>
                          </Form>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </div>
        ))
      )}
    </section>
  );
}
