// Sign-in with OpenID Connect across two instances on one PostgreSQL database and one bucket
// (ADR 0044): a sign-in begun on one instance and sent back by the provider to the other, as a
// load balancer may, finishes there; the flow lives in the browser's cookie, not in an instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { roundTripToProvider, sendCallback, startTestProvider, type TestProvider } from '../helpers/oidc-provider';
import { postgresS3Env } from '../helpers/test-backend';

let provider: TestProvider;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  provider = await startTestProvider();
  const shared = await postgresS3Env();
  a = await startApp({ ...shared, ...provider.env });
  // One public address for both, as behind a load balancer: the provider sends the browser to it.
  b = await startApp({ ...shared, ...provider.env, DATA_DIR: tempDir(), BASE_URL: a.url });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await provider?.stop();
});

describe('signing in with the provider on two instances', () => {
  it('when the sign-in starts on one instance and the callback lands on the other, then it finishes there and the session works on both', async () => {
    const id = await a.createUser('erin');
    await a.rows('update users set oidc_subject = ? where id = ?', ['erin-at-acme', id]);
    provider.accounts.set('erin-at-acme', {});
    provider.signInAs = 'erin-at-acme';

    const trip = await roundTripToProvider(a.url);
    expect(trip.callbackUrl.startsWith(`${a.url}/auth/oidc/callback?`)).toBe(true);
    const res = await sendCallback(trip, trip.callbackUrl.replace(a.url, b.url));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/files');
    const token = res.headers
      .getSetCookie()
      .find((line) => line.startsWith('token='))
      ?.split(';')[0];
    expect(token).toBeDefined();

    for (const instance of [a, b]) {
      const listed = await fetch(`${instance.url}/api/v1/sessions`, { headers: { cookie: token! } });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { sessions: unknown[] }).sessions).toEqual([
        expect.objectContaining({ signInMethod: 'oidc', signedInVia: 'Acme', current: true }),
      ]);
    }
  });
});
