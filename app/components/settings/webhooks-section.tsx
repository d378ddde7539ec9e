import { useRevalidator } from '@remix-run/react';
import type { WebhookDeliveryDto, WebhookDto } from '../../../server/services/webhooks';
import { refusalOf, useInPlaceAnswer, useRowsGone } from '~/utils/in-place';
import { DELIVERY_SENT_AGAIN, newWebhookInput, WEBHOOK_REMOVED, webhookErrorInWords } from '~/utils/settings-forms';
import { trpc } from '~/utils/trpc';
import { FormMessages } from './form-result';
import { NewWebhook, NewWebhookForm } from './new-webhook-form';
import { WhatAWebhookReceives } from './webhook-help';
import { WebhookItem } from './webhook-item';

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

/** The section's three calls with JavaScript (ADR 0077); each answer is said in the section, and the list read again. */
function useWebhookCalls(answer: (result: WebhooksResult) => void) {
  const rows = useRowsGone();
  const revalidator = useRevalidator();
  const create = trpc.webhooks.create.useMutation();
  const remove = trpc.webhooks.delete.useMutation();
  const resend = trpc.webhooks.resendDelivery.useMutation();
  const said = (words: Partial<WebhooksResult>) => {
    answer({ section: 'webhooks', error: null, notice: null, created: null, ...words });
    revalidator.revalidate();
  };
  const onError = (error: unknown) => said({ error: webhookErrorInWords(refusalOf(error).message) });
  return {
    gone: rows.gone,
    add: (form: FormData) =>
      create.mutate(newWebhookInput(form), { onSuccess: (created) => said({ created }), onError }),
    // Its block goes at once; it comes back, with the message, if the server refuses.
    remove: (id: string) => {
      rows.hide(id);
      remove.mutate(
        { id },
        {
          onSuccess: () => said({ notice: WEBHOOK_REMOVED }),
          onError: (error) => {
            rows.show(id);
            onError(error);
          },
        },
      );
    },
    sendAgain: (id: string, deliveryId: string) =>
      resend.mutate({ id, deliveryId }, { onSuccess: () => said({ notice: DELIVERY_SENT_AGAIN }), onError }),
  };
}

/** Webhooks: added (the secret shown once), listed with their recent deliveries, removed; a delivery sent again. */
export function WebhooksSection({
  webhooks,
  result: pageResult,
}: {
  webhooks: Array<WebhookDto & { deliveries: WebhookDeliveryDto[] }>;
  result: WebhooksResult | undefined;
}) {
  const [result, answer] = useInPlaceAnswer(pageResult);
  const calls = useWebhookCalls(answer);
  const shown = webhooks.filter((webhook) => !calls.gone(webhook.id));
  return (
    <section className="card stack" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="muted">
        Your server gets a signed JSON <code>POST</code> when something happens to your files.
      </p>
      <WhatAWebhookReceives />
      <FormMessages error={result?.error} notice={result?.notice} />
      {result?.created ? <NewWebhook created={result.created} /> : null}
      <NewWebhookForm created={result?.created ?? null} sent={result?.sent ?? null} onAdd={calls.add} />
      {shown.length === 0 ? (
        <p className="muted">No webhooks yet.</p>
      ) : (
        shown.map((webhook) => (
          <WebhookItem
            key={webhook.id}
            webhook={webhook}
            onRemove={() => calls.remove(webhook.id)}
            onSendAgain={(deliveryId) => calls.sendAgain(webhook.id, deliveryId)}
          />
        ))
      )}
    </section>
  );
}
