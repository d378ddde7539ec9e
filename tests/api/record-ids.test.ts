// An id in an address that no row can have (a NUL, a control character, a quote) is answered as
// an unknown id, on every route that takes one, without reaching the database: PostgreSQL drops
// the connection on a NUL in a statement, and that used to be read as the database going away
// (503 for everyone until the next probe). Both backends.
import { describe, expect, test } from '../helpers/fixtures';

const BAD_IDS = ['a%00b', 'a%01b', "a'b", 'a%0Ab'];

/** Every route of the API that looks a row up by an id in its path, with the id in place of ID. */
const ROUTES: Array<[method: string, path: string]> = [
  ['PATCH', '/api/v1/files/ID'],
  ['DELETE', '/api/v1/files/ID'],
  ['GET', '/api/v1/collections/ID'],
  ['DELETE', '/api/v1/collections/ID'],
  ['GET', '/api/v1/requests/ID'],
  ['DELETE', '/api/v1/requests/ID'],
  ['DELETE', '/api/v1/tokens/ID'],
  ['DELETE', '/api/v1/sessions/ID'],
  ['DELETE', '/api/v1/webhooks/ID'],
  ['GET', '/api/v1/webhooks/ID/deliveries'],
];

describe('ids no row can have', () => {
  test.for(BAD_IDS)(
    'when a route is asked for the id %s, then it is an unknown one (404) and the service stays up',
    async (bad, { app, alice }) => {
      for (const [method, path] of ROUTES) {
        const res = await alice.fetch(path.replace('ID', bad), {
          method,
          headers: { 'content-type': 'application/json' },
          body: method === 'PATCH' ? JSON.stringify({ originalName: 'x.txt' }) : undefined,
        });
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(await res.json()).toEqual({ error: expect.any(String) });
      }
      // A webhook's delivery id too.
      const hook = await alice.fetch('/api/v1/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://hooks.example.com/in', events: ['file.uploaded'] }),
      });
      const webhook = (await hook.json()) as { webhook?: { id: string } };
      if (webhook.webhook) {
        const resend = await alice.fetch(`/api/v1/webhooks/${webhook.webhook.id}/deliveries/${bad}/resend`, {
          method: 'POST',
        });
        expect(resend.status).toBe(404);
      }
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
      expect((await alice.fetch('/api/v1/files')).status).toBe(200);
    },
  );
});
