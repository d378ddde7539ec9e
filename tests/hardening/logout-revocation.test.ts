// Logout revokes the session server-side (ADR 0002): a copy of the token stops working
// everywhere after logout, while the same user's other sessions carry on.
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { expectServerAnswers, uploadSmall } from '../helpers/hardening-http';

async function apiStatus(app: TestApp, cookie: string): Promise<number> {
  const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
  await res.body?.cancel();
  return res.status;
}

async function filesPage(app: TestApp, cookie: string): Promise<Response> {
  return fetch(`${app.url}/files`, { headers: { cookie }, redirect: 'manual' });
}

describe('logout revokes the session server-side', () => {
  test.for<[string, (app: TestApp, cookie: string) => Promise<Response>]>([
    [
      'the API',
      (app: TestApp, cookie: string) => fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } }),
    ],
    [
      'the page',
      (app: TestApp, cookie: string) =>
        fetch(`${app.url}/logout`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
          redirect: 'manual',
        }),
    ],
  ])(
    'when a user logs out through %s, then a copied token no longer works (API 401, /files redirects to login) and their other session still does',
    async ([_door, logOut], { app, alice }) => {
      const copied = await app.login(alice.username);
      const other = await app.login(alice.username);
      expect(copied).not.toBe(other);
      expect(await apiStatus(app, copied)).toBe(200);
      const sessionsBefore = await app.rows('select count(*) as n from sessions');

      const out = await logOut(app, copied);
      expect([200, 302, 303]).toContain(out.status);
      expect(out.headers.getSetCookie().join('\n')).toMatch(/token=;.*Max-Age=0/i);
      expect(await app.rows('select count(*) as n from sessions')).toEqual([{ n: Number(sessionsBefore[0].n) - 1 }]);

      // The browser forgot the cookie; an attacker who copied it before still sends it.
      const api = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: copied } });
      expect(api.status).toBe(401);
      expect(await api.json()).toEqual({ error: 'Unauthorized' });
      const page = await filesPage(app, copied);
      expect([302, 303]).toContain(page.status);
      expect(page.headers.get('location')).toBe('/login?redirectTo=%2Ffiles');
      const upload = await uploadSmall(app.url, copied);
      expect(upload.status).toBe(401);
      expect(await app.storedFiles()).toEqual([]);
      // A revoked token is never renewed either.
      expect(api.headers.getSetCookie()).toEqual([]);

      expect(await apiStatus(app, other)).toBe(200);
      expect((await filesPage(app, other)).status).toBe(200);
      await expectServerAnswers(app.url);
    },
  );
});

describe('logout always succeeds', () => {
  test.for([
    ['an API token that does not exist', 'Bearer fsk_not-a-real-token'],
    ['a malformed Authorization header', 'Bearer'],
    ['a Basic Authorization header', 'Basic bGVha3k6cGFzc3dvcmQ='],
  ])(
    'when the API logout also carries %s, then 200 {"ok":true}, the cookie is cleared and its session is revoked',
    async ([_label, authorization], { app, alice }) => {
      const cookie = await app.login(alice.username);
      expect(await apiStatus(app, cookie)).toBe(200);

      const out = await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie, authorization } });

      expect(out.status).toBe(200);
      expect(await out.json()).toEqual({ ok: true });
      expect(out.headers.getSetCookie().join('\n')).toMatch(/token=;.*Max-Age=0/i);
      expect(await apiStatus(app, cookie)).toBe(401);
    },
  );

  test('when the page logout also carries a bad API token, then it lands on /login with the cookie cleared and its session revoked', async ({
    app,
    alice,
  }) => {
    const cookie = await app.login(alice.username);
    const out = await fetch(`${app.url}/logout`, {
      method: 'POST',
      headers: {
        cookie,
        authorization: 'Bearer fsk_not-a-real-token',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
      redirect: 'manual',
    });
    expect([302, 303]).toContain(out.status);
    expect(out.headers.get('location')).toBe('/login');
    expect(out.headers.getSetCookie().join('\n')).toMatch(/token=;.*Max-Age=0/i);
    expect(await apiStatus(app, cookie)).toBe(401);
  });

  test('when the API logout carries a bad API token and no cookie, then 200 {"ok":true} and a cleared cookie', async ({
    app,
  }) => {
    const out = await fetch(`${app.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { authorization: 'Bearer fsk_garbage' },
    });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ ok: true });
    expect(out.headers.getSetCookie().join('\n')).toMatch(/token=;.*Max-Age=0/i);
  });
});
