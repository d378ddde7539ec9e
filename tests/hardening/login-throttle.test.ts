import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startApp();
  await app.createUser('victim');
  await app.createUser('other');
});
afterAll(() => app.close());

function apiLogin(username: string, password: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username, password }),
  });
}

function pageLogin(username: string, password: string) {
  return fetch(`${app.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password, redirectTo: '/files' }),
  });
}

describe('login throttling', () => {
  it('when one username fails five times, then the next attempt — even with the right password — is 429 with Retry-After, on the API and the page', async () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await apiLogin('victim', 'wrong password')).status).toBe(401);
    }
    const refused = await apiLogin('Victim', 'correct horse battery');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/too many/i) });
    expect(refused.headers.getSetCookie()).toEqual([]);

    const page = await pageLogin('victim', 'correct horse battery');
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await page.text()).toMatch(/Too many failed login attempts/);
  });

  it('when one username is locked, then another user logs in normally', async () => {
    expect((await apiLogin('other', 'correct horse battery')).status).toBe(200);
  });

  it('when failures pile up, then later failures are answered more slowly', async () => {
    const timings: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const started = performance.now();
      expect((await apiLogin('slowed', 'wrong password')).status).toBe(401);
      timings.push(performance.now() - started);
    }
    expect(timings[3]).toBeGreaterThan(timings[0] + 300);
  });

  it('when the counters are stored, then they are rows in the database (they survive a restart)', async () => {
    const rows = await app.rows("select key, points from login_throttle where key = 'user:victim'");
    expect(rows).toEqual([{ key: 'user:victim', points: expect.any(Number) }]);
    expect(Number(rows[0].points)).toBeGreaterThanOrEqual(5);
  });
});
