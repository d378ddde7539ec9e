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

/** One delivery's body, as README's Webhooks section shows it (server/webhooks/deliverer.ts makes it). */
const EXAMPLE_BODY = `{
  "id": "6f1c0a9e2b8d4c7f9a0e1d2c3b4a5f60",
  "type": "file.uploaded",
  "created": "2026-12-03T10:00:00.000Z",
  "data": {
    "fileId": "…",
    "name": "notes.txt",
    "size": 14,
    "mimeType": "text/plain",
    "shareUrl": "https://files.example.com/f/…"
  }
}`;

/**
 * What an endpoint is sent and how to trust it, said where the webhook is added (ADR 0050,
 * ADR 0057): the body, the signature and how to check it, and the retries.
 */
function WhatAWebhookReceives() {
  return (
    <details className="webhook-help">
      <summary>What your server receives, and how to check it</summary>
      <div className="stack">
        <p>Each event is one JSON body like this:</p>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways on a phone is reached by the keyboard to scroll it */}
        <pre tabIndex={0}>
          <code>{EXAMPLE_BODY}</code>
        </pre>
        <p>
          <code>file.downloaded</code> adds <code>first</code> (the first download) and <code>count</code> (downloads
          since the last event); <code>request.received</code> adds <code>requestId</code>, <code>guestName</code> and{' '}
          <code>guestNote</code>.
        </p>
        <p>
          <strong>Signature.</strong> The header <code>{'X-Signature: t=<unix seconds>,v1=<hex>'}</code> holds the
          HMAC-SHA256 of <code>{'<t>.<body>'}</code> (the body exactly as received, before parsing it) under the
          webhook's signing secret. Compute the same, compare the two in constant time, and refuse a <code>t</code> more
          than five minutes old: a replay.
        </p>
        <p>
          <strong>Retries.</strong> Answer with a 2xx within 10 seconds. Any other answer, or none, is sent again,
          waiting longer each time, for a day; then the delivery is marked failed. A retry has the same <code>id</code>,
          also in the <code>X-Webhook-Id</code> header: drop repeats by it.
        </p>
      </div>
    </details>
  );
}

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
        Your server gets a signed JSON <code>POST</code> when something happens to your files.
      </p>
      <WhatAWebhookReceives />
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
            <RowAction
              intent="delete-webhook"
              id={webhook.id}
              label="Remove"
              ariaLabel={`Remove ${webhook.url}`}
              confirmation={{
                question: `Remove the webhook to ${webhook.url}? Nothing more is sent to it, and its deliveries are deleted.`,
                action: 'Remove',
              }}
            />
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
