// How a delivery is signed (ADR 0050): HMAC-SHA256 with the endpoint's secret over
// `${timestamp}.${body}`, sent as `X-Signature: t=<unix seconds>,v1=<hex>`. The timestamp lets a
// receiver refuse an old delivery replayed; the README shows how to check it.
import { createHmac } from 'node:crypto';

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
