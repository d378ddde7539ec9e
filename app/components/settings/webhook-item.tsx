import { Form } from '@remix-run/react';
import type { FormEvent } from 'react';
import type { WebhookDeliveryDto, WebhookDto } from '../../../server/services/webhooks';
import { LocalTime } from '~/components/local-time';
import { RowAction } from './row-action';

const STATUS_WORDS: Record<WebhookDeliveryDto['status'], string> = {
  pending: 'Waiting to be sent',
  delivered: 'Delivered',
  failed: 'Failed',
};

/** Deliveries shown per webhook. */
const SHOWN_DELIVERIES = 10;

/** One webhook: its address and events, a way to remove it, and its recent deliveries. */
export function WebhookItem({
  webhook,
  onRemove,
  onSendAgain,
}: {
  webhook: WebhookDto & { deliveries: WebhookDeliveryDto[] };
  onRemove: () => void;
  onSendAgain: (deliveryId: string) => void;
}) {
  return (
    <div className="stack webhook" data-webhook-id={webhook.id}>
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
        onConfirmed={onRemove}
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
                <DeliveryRow
                  key={delivery.id}
                  webhookId={webhook.id}
                  delivery={delivery}
                  onSendAgain={() => onSendAgain(delivery.id)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function DeliveryRow({
  webhookId,
  delivery,
  onSendAgain,
}: {
  webhookId: string;
  delivery: WebhookDeliveryDto;
  onSendAgain: () => void;
}) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSendAgain();
  };
  return (
    <tr data-delivery-id={delivery.id}>
      <td className="event">
        <code>{delivery.type}</code> <LocalTime iso={delivery.createdAt} />
      </td>
      <td data-label="Status">{STATUS_WORDS[delivery.status]}</td>
      <td data-label="Attempts">{delivery.attempts}</td>
      <td data-label="Last answer">
        {delivery.lastStatusCode !== null ? `HTTP ${delivery.lastStatusCode}` : (delivery.lastError ?? '—')}
      </td>
      <td data-label="Next attempt">{delivery.nextAttemptAt ? <LocalTime iso={delivery.nextAttemptAt} /> : '—'}</td>
      <td>
        <Form method="post" onSubmit={onSubmit}>
          <input type="hidden" name="intent" value="resend-webhook-delivery" />
          <input type="hidden" name="id" value={webhookId} />
          <input type="hidden" name="deliveryId" value={delivery.id} />
          <button type="submit" className="secondary small" aria-label={`Send ${delivery.type} again`}>
            Send again
          </button>
        </Form>
      </td>
    </tr>
  );
}
