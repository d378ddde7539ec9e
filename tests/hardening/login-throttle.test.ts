// The login throttle (ADR 0004, ADR 0009): brute force is refused per (username, address)
// pair and per address, parallel guesses count one each, and nobody can lock a user out from
// another address. Addresses come from X-Forwarded-For (TRUST_PROXY) so one test can be many clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, startApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startApp({ TRUST_PROXY: 'true' });
  for (const name of ['victim', 'other', 'target', 'parallel', 'shared', 'counted']) await app.createUser(name);
});
afterAll(() => app.close());

function apiLogin(username: string, password: string, from = '203.0.113.1') {
  return fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ username, password }),
  });
}

function pageLogin(username: string, password: string, from = '203.0.113.1') {
  return fetch(`${app.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
    body: new URLSearchParams({ username, password, redirectTo: '/files' }),
  });
}

async function failures(key: string): Promise<number | undefined> {
  const rows = await app.rows('select failures from login_attempts where key = ?', [key]);
  return rows.length ? Number(rows[0].failures) : undefined;
}

describe('login throttling', () => {
  it('when one username fails five times from one address, then the next attempt from there — even with the right password — is 429 with Retry-After, on the API and the page', async () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await apiLogin('victim', 'wrong password')).status).toBe(401);
    }
    const refused = await apiLogin('Victim', DEFAULT_PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(15 * 60);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/too many/i) });
    expect(refused.headers.getSetCookie()).toEqual([]);

    const page = await pageLogin('victim', DEFAULT_PASSWORD);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await page.text()).toMatch(/Too many failed login attempts/);
  });

  it('when a username was failed five times from one address, then its owner logs in from another address, under any case, on the API and the page', async () => {
    expect((await apiLogin('victim', 'wrong password')).status).toBe(429);
    const api = await apiLogin('VICTIM', DEFAULT_PASSWORD, '198.51.100.7');
    expect(api.status).toBe(200);
    const page = await pageLogin('victim', DEFAULT_PASSWORD, '198.51.100.8');
    expect(page.status).toBe(302);
  });

  it('when one username is refused, then another user logs in normally from the same address', async () => {
    expect((await apiLogin('other', DEFAULT_PASSWORD)).status).toBe(200);
  });

  it('when failures pile up, then later failures are answered more slowly', async () => {
    const timeFailure = async (username: string, from: string) => {
      const started = performance.now();
      expect((await apiLogin(username, 'wrong password', from)).status).toBe(401);
      return performance.now() - started;
    };
    // The usual time of a first failure, once warm: the middle of three fresh pairs, so that the
    // first request's cold start or one slowed by a busy machine says nothing.
    const fresh = [];
    for (let i = 0; i < 3; i++) fresh.push(await timeFailure(`fresh${i}`, `203.0.113.5${i + 1}`));
    const usual = fresh.sort((a, b) => a - b)[1];
    const timings: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) timings.push(await timeFailure('slowed', '203.0.113.50'));
    // The fourth failure of a pair waits 500 ms before it is answered.
    expect(timings[3]).toBeGreaterThanOrEqual(500);
    expect(timings[3]).toBeGreaterThan(usual + 300);
  });

  it('when 200 guesses for one username arrive at once from one address, then at most five passwords are checked and the rest are 429', {
    timeout: 60_000,
  }, async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => apiLogin('parallel', `guess ${i}`, '203.0.113.60')),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(195);
    expect(await failures('pair:203.0.113.60|parallel')).toBe(5);
    expect(await failures('user:parallel')).toBe(5);
  });

  it('when eight wrong logins run at once, then each one is counted', { timeout: 30_000 }, async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => apiLogin('counted', `wrong ${i}`, '203.0.113.70')),
    );
    const others = await Promise.all(
      Array.from({ length: 4 }, (_, i) => apiLogin(`nobody${i}`, 'wrong', '203.0.113.70')),
    );
    expect([...results, ...others].map((res) => res.status)).toEqual(Array(8).fill(401));
    expect(await failures('pair:203.0.113.70|counted')).toBe(4);
    expect(await failures('user:counted')).toBe(4);
    expect(await failures('addr:203.0.113.70')).toBe(8);
  });

  it('when one address fails 30 times across usernames, then its later failures are answered more slowly, then it is refused even for a real account, and other addresses are not', {
    timeout: 60_000,
  }, async () => {
    const timings: number[] = [];
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      expect((await apiLogin(`stuffed${i}`, 'leaked password', '203.0.113.80')).status).toBe(401);
      timings.push(performance.now() - started);
    }
    // Each username failed once: only the address's count can slow these (slowed, then 429).
    // Against the middle of the first five: one of them slowed by a busy machine says nothing.
    const usual = [...timings.slice(0, 5)].sort((a, b) => a - b)[2];
    expect(Math.min(...timings.slice(25))).toBeGreaterThan(usual + 500);
    expect((await apiLogin('shared', DEFAULT_PASSWORD, '203.0.113.80')).status).toBe(429);
    expect((await apiLogin('shared', DEFAULT_PASSWORD, '203.0.113.81')).status).toBe(200);
  });

  it('when a username is guessed from many addresses, then it is slowed and each address gets two tries, but its owner still logs in from a clean address', {
    timeout: 120_000,
  }, async () => {
    for (let i = 0; i < 20; i++) expect((await apiLogin('target', 'wrong', `192.0.2.${i}`)).status).toBe(401);
    // Under attack: a new address gets two failures, not five.
    expect((await apiLogin('target', 'wrong', '192.0.2.100')).status).toBe(401);
    expect((await apiLogin('target', 'wrong', '192.0.2.100')).status).toBe(401);
    expect((await apiLogin('target', 'wrong', '192.0.2.100')).status).toBe(429);

    const started = performance.now();
    const owner = await apiLogin('target', DEFAULT_PASSWORD, '192.0.2.200');
    expect(owner.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('when a login succeeds, then its pair counter is cleared and its address gets its place back', async () => {
    expect((await apiLogin('other', 'wrong', '203.0.113.90')).status).toBe(401);
    expect(await failures('pair:203.0.113.90|other')).toBe(1);
    expect((await apiLogin('other', DEFAULT_PASSWORD, '203.0.113.90')).status).toBe(200);
    expect(await failures('pair:203.0.113.90|other')).toBe(0);
    expect(await failures('addr:203.0.113.90')).toBe(1);
  });

  it('when ten correct logins for one user arrive at once from one address, then all ten succeed (they queue, they are not refused)', {
    timeout: 30_000,
  }, async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => apiLogin('other', DEFAULT_PASSWORD, '203.0.113.95')),
    );
    expect(results.map((res) => res.status)).toEqual(Array(10).fill(200));
  });

  it('when every attempt has ended, then no counter holds a place for an attempt under way', async () => {
    expect(await app.rows('select key from login_attempts where pending <> 0')).toEqual([]);
  });
});
