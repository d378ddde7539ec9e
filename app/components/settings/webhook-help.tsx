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
export function WhatAWebhookReceives() {
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
