// Two-factor codes guessed from many addresses (ADR 0058): wrong codes count per account from
// every address, and past ten in 15 minutes the account's code step is refused (429 with
// Retry-After, the page saying for how long) for 15 minutes, the right code included; the owner's
// next sign-in tells of the wrong codes once, on the API and on the page. An IPv6 address counts
// by its /64. Addresses come from X-Forwarded-For (TRUST_PROXY); the app's clock is the test's.
import { cookieFrom, DEFAULT_PASSWORD, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { alertsOf, getPage, visibleText } from '../helpers/pages-fixtures';
import { middleOfNextStep, totpCode } from '../helpers/totp';

const clock = new TestClock();
const LOCK_OUT_MS = 15 * 60 * 1000;

function nextStepMiddle(): void {
  clock.advance(middleOfNextStep(clock.now()) - clock.now());
}

/** A 6-digit code that is none of the codes the app takes now (this step and one either side). */
function wrongTimeCode(secret: string, seed: number): string {
  const taken = [-1, 0, 1].map((steps) => totpCode(secret, clock.now() + steps * 30_000));
  for (let candidate = seed; ; candidate++) {
    const code = String(candidate % 1_000_000).padStart(6, '0');
    if (!taken.includes(code)) return code;
  }
}

function signIns(app: TestApp) {
  let users = 0;
  const apiLogin = (username: string, from: string, extra: Record<string, string> = {}, password = DEFAULT_PASSWORD) =>
    fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ username, password, ...extra }),
    });
  const pagePost = (fields: Record<string, string>, from: string, cookie?: string) =>
    fetch(`${app.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': from,
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });

  /** The login page's two steps from one address: the password, then `code` with the step's cookie. */
  async function pageSignIn(username: string, code: string, from: string): Promise<Response> {
    const step = await pagePost({ username, password: DEFAULT_PASSWORD, redirectTo: '/files' }, from);
    expect(step.status).toBe(401);
    const stepCookie = step.headers.getSetCookie()[0].split(';')[0];
    return pagePost({ step: 'code', code, redirectTo: '/files' }, from, stepCookie);
  }

  /** A new user with two-factor codes on (set up through the API); their secret and recovery codes. */
  async function enrolledUser(from: string) {
    const username = `guessed${++users}`;
    await app.createUser(username);
    const cookie = cookieFrom(await apiLogin(username, from));
    const post = (path: string, body: unknown) =>
      fetch(`${app.url}/api/v1${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-forwarded-for': from },
        body: JSON.stringify(body),
      });
    const { secret } = (await (await post('/me/2fa', {})).json()) as { secret: string };
    nextStepMiddle();
    const confirmed = await post('/me/2fa/confirm', { code: totpCode(secret, clock.now()) });
    expect(confirmed.status).toBe(200);
    nextStepMiddle();
    return { username, secret };
  }
  return { apiLogin, pageSignIn, enrolledUser };
}

const test = base.extend('signIns', { scope: 'file' }, ({ app }) => signIns(app));
test.override('appEnv', { TRUST_PROXY: 'true' });
test.override('appOptions', { clock });

describe('wrong two-factor codes from many addresses', () => {
  test('when wrong codes and recovery codes come from 15 addresses with the right password, then after ten the right code is refused too with 429 and Retry-After; after the lock-out it signs in, and the login answer tells of the wrong codes once', {
    timeout: 120_000,
  }, async ({ signIns: { apiLogin, enrolledUser } }) => {
    const { username, secret } = await enrolledUser('203.0.113.200');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      // Time codes and recovery codes alike: both are guesses at the second factor.
      const code = i % 2 === 0 ? wrongTimeCode(secret, 100_000 + i) : `abcd-ef01-2345-67${String(i).padStart(2, '0')}`;
      statuses.push((await apiLogin(username, `198.51.100.${i + 1}`, { code })).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);

    const refused = await apiLogin(username, '198.51.100.99', { code: totpCode(secret, clock.now()) });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(await refused.json()).toEqual({
      error: 'Too many wrong two-factor codes were tried for this account. Try again in 15 minutes.',
    });
    expect(refused.headers.getSetCookie()).toEqual([]);
    // A wrong password is still told as a wrong password: the lock says nothing to who lacks it.
    expect((await apiLogin(username, '198.51.100.98', {}, 'not the password')).status).toBe(401);

    clock.advance(LOCK_OUT_MS);
    nextStepMiddle();
    const signedIn = await apiLogin(username, '198.51.100.99', { code: totpCode(secret, clock.now()) });
    expect(signedIn.status).toBe(200);
    const body = await signedIn.json();
    expect(body).toEqual({
      user: { id: expect.any(String), username },
      wrongCodes: { count: 10, lastAt: expect.any(String) },
    });
    // The lock-out began with the tenth wrong code, a lock-out's length before now.
    expect(Math.abs(Date.parse(body.wrongCodes.lastAt) - (clock.now() - LOCK_OUT_MS))).toBeLessThan(60_000);

    nextStepMiddle();
    const again = await apiLogin(username, '198.51.100.99', { code: totpCode(secret, clock.now()) });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ user: { id: expect.any(String), username } });
  });

  test('when the code step was locked by wrong codes on the login page, then the page says for how long; after it the right code signs in, and the next page tells of the wrong codes once', {
    timeout: 120_000,
  }, async ({ app, signIns: { pageSignIn, enrolledUser } }) => {
    const { username, secret } = await enrolledUser('203.0.113.201');
    for (let i = 0; i < 10; i++) {
      const wrong = await pageSignIn(username, wrongTimeCode(secret, 200_000 + i), `192.0.2.${i + 1}`);
      expect(wrong.status).toBe(401);
    }
    const refused = await pageSignIn(username, totpCode(secret, clock.now()), '192.0.2.99');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(alertsOf(await refused.text())).toEqual([
      'Too many wrong two-factor codes were tried for this account. Try again in 15 minutes.',
    ]);
    expect(refused.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);

    clock.advance(LOCK_OUT_MS);
    nextStepMiddle();
    const signedIn = await pageSignIn(username, totpCode(secret, clock.now()), '192.0.2.99');
    expect(signedIn.status).toBe(302);
    const cookies = signedIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .filter((pair) => !pair.endsWith('='));
    const next = await getPage(app, '/files', cookies.join('; '));
    expect(next.status).toBe(200);
    const notice = alertsOf(await next.text());
    expect(notice).toHaveLength(1);
    expect(notice[0]).toMatch(
      /^10 wrong sign-in codes were tried for your account on \d{4}-\d\d-\d\d \d\d:\d\d UTC ?\. If it was not you, change your password ?\.$/,
    );
    expect(next.headers.getSetCookie().some((line) => /^sign_in_notice=;.*Max-Age=0/.test(line))).toBe(true);

    // Once: the following page, and the next sign-in, say nothing more.
    const session = cookies.find((pair) => pair.startsWith('token=')) ?? '';
    expect(alertsOf(await (await getPage(app, '/files', session)).text())).toEqual([]);
    nextStepMiddle();
    const later = await pageSignIn(username, totpCode(secret, clock.now()), '192.0.2.99');
    expect(later.status).toBe(302);
    expect(later.headers.getSetCookie().some((line) => line.startsWith('sign_in_notice='))).toBe(false);
    expect(visibleText(await (await getPage(app, '/files', session)).text())).not.toContain('wrong sign-in codes');
  });
});

describe('IPv6 addresses in the throttle', () => {
  test('when wrong passwords come from five addresses of one IPv6 /64, then the /64 is refused even with the right password, and another /64 is not', {
    timeout: 60_000,
  }, async ({ app, signIns: { apiLogin } }) => {
    await app.createUser('sixty-four');
    for (let i = 1; i <= 5; i++) {
      expect((await apiLogin('sixty-four', `2001:db8:64:1::${i}`, {}, 'wrong password')).status).toBe(401);
    }
    const refused = await apiLogin('sixty-four', '2001:db8:64:1:ffff:ffff:ffff:fffe');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await apiLogin('sixty-four', '2001:db8:64:2::1')).status).toBe(200);
  });

  test('when wrong codes come from five addresses of one IPv6 /64, then the right code from that /64 is refused, and from another /64 it signs in', {
    timeout: 60_000,
  }, async ({ signIns: { apiLogin, enrolledUser } }) => {
    const { username, secret } = await enrolledUser('203.0.113.202');
    for (let i = 1; i <= 5; i++) {
      const wrong = await apiLogin(username, `2001:db8:65:1::${i}`, { code: wrongTimeCode(secret, 300_000 + i) });
      expect(wrong.status).toBe(401);
    }
    const right = { code: totpCode(secret, clock.now()) };
    expect((await apiLogin(username, '2001:db8:65:1::abcd', right)).status).toBe(429);
    expect((await apiLogin(username, '2001:db8:65:2::1', right)).status).toBe(200);
  });
});
