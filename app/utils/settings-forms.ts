// What the forms of /settings send and say, the same whether the page's action or an in-place
// call (/trpc, with JavaScript) takes them. Pure: the browser uses it too.

/** The new-token form's fields, as the service takes them ("" is no expiry). */
export function newTokenInput(form: FormData): { name: FormDataEntryValue; expiresInDays: string | null } {
  const days = form.get('expiresInDays');
  return { name: form.get('name') ?? '', expiresInDays: typeof days === 'string' && days !== '' ? days : null };
}

/** The new-webhook form's fields, as the service takes them. */
export function newWebhookInput(form: FormData): { url: string; events: string[] } {
  return { url: String(form.get('url') ?? ''), events: form.getAll('events').map(String) };
}

export const TOKEN_REVOKED = 'The token was revoked: it no longer works.';
export const WEBHOOK_REMOVED = 'The webhook was removed: nothing more is sent to it.';
export const DELIVERY_SENT_AGAIN = 'The delivery is sent again in a moment, with the same id.';

/** A webhooks form's refusal: the service's message, as a sentence. */
export function webhookErrorInWords(message: string): string {
  return `${message}${message.endsWith('.') ? '' : '.'}`;
}
