// Sign-in with OpenID Connect against a real provider (tests/helpers/oidc-provider.ts), on
// every backend: which account an identity signs in as, the session it gets, and the page each
// failure gives (ADR 0044).
import { afterAll, beforeAll } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
import { totpCode } from '../helpers/totp';
import { describe, expect, test } from '../helpers/fixtures';
import { roundTripToProvider, sendCallback, startTestProvider, type TestProvider } from '../helpers/oidc-provider';

let provider: TestProvider;
let app: TestApp;

beforeAll(async () => {
  provider = await startTestProvider();
  app = await startApp(provider.env);
});
afterAll(async () => {
  await app?.close();
  await provider?.stop();
});

/** A user created by the admin, linked to the provider's `subject` as `users link-oidc` does. */
async function linkedUser(username: string, subject: string, claims: Record<string, unknown> = {}): Promise<string> {
  const id = await app.createUser(username);
  await app.rows('update users set oidc_subject = ? where id = ?', [subject, id]);
  provider.accounts.set(subject, claims);
  return id;
}

async function pageText(res: Response): Promise<string> {
  return (await res.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

describe('signing in with the provider', () => {
  test('when a linked identity signs in, then the browser lands on My files with a session like a password login, listed "via Acme"', async () => {
    await linkedUser('alice', 'alice-at-acme', { preferred_username: 'someone-else' });
    provider.signInAs = 'alice-at-acme';
    const res = await sendCallback(await roundTripToProvider(app.url));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/files');
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith('token='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Max-Age=2592000/);
    const listed = await fetch(`${app.url}/api/v1/sessions`, { headers: { cookie: cookie?.split(';')[0] ?? '' } });
    expect(listed.status).toBe(200);
    const { sessions } = (await listed.json()) as { sessions: unknown[] };
    expect(sessions).toEqual([expect.objectContaining({ signInMethod: 'oidc', signedInVia: 'Acme', current: true })]);
  });

  test('when the sign-in began on a page, then the browser goes back to it', async () => {
    await linkedUser('carol', 'carol-at-acme');
    provider.signInAs = 'carol-at-acme';
    const res = await sendCallback(await roundTripToProvider(app.url, '/settings'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings');
  });

  test('when the identity is linked to no account, then a 403 page says so and to ask an administrator, and no account is created', async () => {
    provider.accounts.set('stranger', { preferred_username: 'stranger' });
    provider.signInAs = 'stranger';
    const before = await app.rows('select count(*) as n from users');
    const res = await sendCallback(await roundTripToProvider(app.url));
    expect(res.status).toBe(403);
    const text = await pageText(res);
    expect(text).toContain('not linked to an account here');
    expect(text).toContain('Ask an administrator');
    expect(res.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);
    expect(await app.rows('select count(*) as n from users')).toEqual(before);
  });

  test('when the linked account is disabled, then a 403 page says so, as with a password', async () => {
    const id = await linkedUser('dave', 'dave-at-acme');
    await app.rows('update users set disabled_at = ? where id = ?', [new Date().toISOString(), id]);
    provider.signInAs = 'dave-at-acme';
    const res = await sendCallback(await roundTripToProvider(app.url));
    expect(res.status).toBe(403);
    expect(await pageText(res)).toContain('This account has been disabled. Ask an administrator.');
  });

  test('when the callback carries another state than the flow began with, then a 400 page says the answer does not belong to this sign-in', async () => {
    await linkedUser('erin', 'erin-at-acme');
    provider.signInAs = 'erin-at-acme';
    const trip = await roundTripToProvider(app.url);
    const url = new URL(trip.callbackUrl);
    url.searchParams.set('state', 'a-state-from-somewhere-else');
    const res = await sendCallback(trip, url.href);
    expect(res.status).toBe(400);
    const shown = await pageText(res);
    expect(shown).toContain('does not belong to the sign-in started in this browser');
  });

  test('when the callback comes without the flow cookie (another browser), then a 400 page says to start again', async () => {
    const res = await fetch(`${app.url}/auth/oidc/callback?code=abc&state=def`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await pageText(res)).toContain('start again from the login page');
  });

  test('when a code is sent back a second time, then the provider refuses it and a 400 page says so', async () => {
    await linkedUser('frank', 'frank-at-acme');
    provider.signInAs = 'frank-at-acme';
    const trip = await roundTripToProvider(app.url);
    expect((await sendCallback(trip)).status).toBe(303);
    const again = await sendCallback(trip);
    expect(again.status).toBe(400);
    expect(await pageText(again)).toContain('its code was already used or has expired');
    expect(again.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);
  });

  test('when the ID token was issued for another client, then nothing is signed in and a 400 page says it could not be verified', async () => {
    await linkedUser('grace', 'grace-at-acme');
    provider.signInAs = 'grace-at-acme';
    provider.alterIdToken = (claims) => ({ ...claims, aud: 'another-client' });
    try {
      const res = await sendCallback(await roundTripToProvider(app.url));
      expect(res.status).toBe(400);
      expect(await pageText(res)).toContain('could not be verified');
      expect(res.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);
    } finally {
      provider.alterIdToken = null;
    }
  });

  test('when the ID token has expired, then nothing is signed in and a 400 page says it could not be verified', async () => {
    await linkedUser('heidi', 'heidi-at-acme');
    provider.signInAs = 'heidi-at-acme';
    const now = Math.floor(Date.now() / 1000);
    provider.alterIdToken = (claims) => ({ ...claims, iat: now - 7200, exp: now - 3600 });
    try {
      const res = await sendCallback(await roundTripToProvider(app.url));
      expect(res.status).toBe(400);
      expect(await pageText(res)).toContain('could not be verified');
    } finally {
      provider.alterIdToken = null;
    }
  });

  test('when the provider cancels the sign-in (access_denied), then a 400 page says it did not sign you in', async () => {
    await linkedUser('ivan', 'ivan-at-acme');
    provider.signInAs = 'ivan-at-acme';
    const trip = await roundTripToProvider(app.url);
    const url = new URL(trip.callbackUrl);
    const state = url.searchParams.get('state') ?? '';
    const res = await sendCallback(
      trip,
      `${app.url}/auth/oidc/callback?${new URLSearchParams({ error: 'access_denied', state, iss: provider.issuer })}`,
    );
    expect(res.status).toBe(400);
    expect(await pageText(res)).toContain('Acme did not sign you in (access_denied)');
  });
});

describe('the provider going down', () => {
  test('when the provider stops answering between its sign-in and the callback, then a 502 page says it cannot be reached', async () => {
    const own = await startTestProvider();
    const ownApp = await startApp(own.env);
    try {
      const id = await ownApp.createUser('judy');
      await ownApp.rows('update users set oidc_subject = ? where id = ?', ['judy-at-acme', id]);
      own.accounts.set('judy-at-acme', {});
      own.signInAs = 'judy-at-acme';
      const trip = await roundTripToProvider(ownApp.url);
      await own.stop();
      const res = await sendCallback(trip);
      expect(res.status).toBe(502);
      expect(await pageText(res)).toContain('Acme cannot be reached right now');
    } finally {
      await ownApp.close();
    }
  });

  test('when the issuer cannot be reached at start, then the start fails with one line naming OIDC_ISSUER', async () => {
    const gone = await startTestProvider();
    await gone.stop();
    await expect(startApp(gone.env)).rejects.toThrow(
      /^OIDC_ISSUER http:\/\/127\.0\.0\.1:\d+: the provider cannot be reached/,
    );
  });
});

describe('matching by a claim (OIDC_MATCH_CLAIM)', () => {
  test('when an unlinked identity has the preferred_username of an account, then it signs in as it and is linked from then on', async () => {
    const own = await startTestProvider();
    const ownApp = await startApp({ ...own.env, OIDC_MATCH_CLAIM: 'preferred_username' });
    try {
      const id = await ownApp.createUser('Kim');
      own.accounts.set('kim-at-acme', { preferred_username: 'kim' });
      own.signInAs = 'kim-at-acme';
      const res = await sendCallback(await roundTripToProvider(ownApp.url));
      expect(res.status).toBe(303);
      expect(await ownApp.rows('select oidc_subject from users where id = ?', [id])).toEqual([
        { oidc_subject: 'kim-at-acme' },
      ]);
      // Another identity with the same claim no longer takes the account: it is linked already.
      own.accounts.set('impostor', { preferred_username: 'kim' });
      own.signInAs = 'impostor';
      const other = await sendCallback(await roundTripToProvider(ownApp.url));
      expect(other.status).toBe(403);
    } finally {
      await ownApp.close();
      await own.stop();
    }
  });
});

describe('with password logins off (PASSWORD_LOGIN=off)', () => {
  test('when the API is asked to log in with a password, then it answers 403 saying to sign in with the provider; API tokens keep working', async () => {
    const own = await startTestProvider();
    const ownApp = await startApp({ ...own.env, PASSWORD_LOGIN: 'off' });
    try {
      const id = await ownApp.createUser('leo');
      const res = await fetch(`${ownApp.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'leo', password: 'correct horse battery' }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: 'Logging in with a password is turned off here: sign in with Acme',
      });
      // A token made before (or by a session begun at the provider) still works.
      await ownApp.rows('update users set oidc_subject = ? where id = ?', ['leo-at-acme', id]);
      own.accounts.set('leo-at-acme', {});
      own.signInAs = 'leo-at-acme';
      const signedIn = await sendCallback(await roundTripToProvider(ownApp.url));
      const cookie =
        signedIn.headers
          .getSetCookie()
          .find((line) => line.startsWith('token='))
          ?.split(';')[0] ?? '';
      const made = await fetch(`${ownApp.url}/api/v1/tokens`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'script' }),
      });
      expect(made.status).toBe(201);
      const { token } = (await made.json()) as { token: string };
      const files = await fetch(`${ownApp.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } });
      expect(files.status).toBe(200);

      const page = await fetch(`${ownApp.url}/login`);
      const html = await page.text();
      expect(html).toContain('Sign in with Acme');
      expect(html).not.toContain('name="password"');
    } finally {
      await ownApp.close();
      await own.stop();
    }
  });
});

describe('two-factor codes after the provider (OIDC_REQUIRE_2FA=on)', () => {
  test('when a user with codes on signs in, then the login page asks for the code, and the right code finishes the sign-in', async () => {
    const own = await startTestProvider();
    const ownApp = await startApp({ ...own.env, OIDC_REQUIRE_2FA: 'on' });
    try {
      const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
      const id = await ownApp.createUser('mia');
      await ownApp.rows('update users set oidc_subject = ?, two_factor_enabled = ?, totp_secret = ? where id = ?', [
        'mia-at-acme',
        true,
        secret,
        id,
      ]);
      own.accounts.set('mia-at-acme', {});
      own.signInAs = 'mia-at-acme';
      const back = await sendCallback(await roundTripToProvider(ownApp.url));
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe('/login?redirectTo=%2Ffiles');
      expect(back.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);
      const step =
        back.headers
          .getSetCookie()
          .find((line) => line.startsWith('login_code_step='))
          ?.split(';')[0] ?? '';

      const page = await fetch(`${ownApp.url}/login?redirectTo=%2Ffiles`, { headers: { cookie: step } });
      const html = await pageText(page);
      expect(html).toContain('Enter the code your authenticator app shows for mia');

      const wrong = await fetch(`${ownApp.url}/login?redirectTo=%2Ffiles`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: step, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ step: 'code', code: '000000' }),
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);

      const right = await fetch(`${ownApp.url}/login?redirectTo=%2Ffiles`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: step, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ step: 'code', code: totpCode(secret, Date.now()) }),
      });
      expect(right.status).toBe(302);
      expect(right.headers.get('location')).toBe('/files');
      expect(right.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(true);
    } finally {
      await ownApp.close();
      await own.stop();
    }
  });
});
