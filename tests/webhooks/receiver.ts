// An HTTP server on 127.0.0.1 that plays a webhook receiver: it keeps every request it gets and
// answers each with the status `answer` chooses (200 unless told otherwise).
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; created: string; data: Record<string, unknown> };
  /** The status it was answered with. */
  status: number;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Resolves once `count` requests have come (of `type`, when given); rejects after `timeoutMs`. */
  waitFor(count: number, type?: string, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (nth: number) => number = () => 200): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const status = answer(received.length + 1);
      received.push({ headers: req.headers, body, json: JSON.parse(body), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const ofType = (type?: string) => received.filter((entry) => type === undefined || entry.json.type === type);
  return {
    url,
    received,
    async waitFor(count, type, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (ofType(type).length < count) {
        if (Date.now() > until)
          throw new Error(`${ofType(type).length} of ${count} deliveries${type ? ` of ${type}` : ''} came`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return ofType(type);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether X-Signature is the HMAC-SHA256 of `${t}.${body}` under the secret, as the README shows a receiver checking it. */
export function signatureIsValid(delivery: ReceivedDelivery, secret: string): boolean {
  const header = String(delivery.headers['x-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${delivery.body}`).digest('hex');
  return expected === match[2];
}
