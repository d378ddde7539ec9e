// POST /api/v1/auth/login and /logout, and the session cookie they set (docs/api.md, ADR 0002).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PASSWORD, startApp, type TestApp } from '../helpers/app';
import { claimsOf, headerOf, now, sessionCookies } from '../helpers/tokens';

let app: TestApp;
let aliceId: string;

beforeAll(async () => {
  app = await startApp();
  aliceId = await app.createUser('Alice');
});
afterAll(() => app.close());

function postLogin(body: string, contentType = 'application/json', target = app) {
  return fetch(`${target.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': contentType }, body });
}

const json = (value: unknown) => JSON.stringify(value);

describe('POST /api/v1/auth/login', () => {
  it('when the username and password are right, then it answers 200 with the user and sets a session cookie that opens the API', async () => {
    const res = await postLogin(json({ username: 'Alice', password: DEFAULT_PASSWORD }));

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ user: { id: aliceId, username: 'Alice' } });
    const [cookie] = sessionCookies(res);
    expect(cookie.value).not.toBe('');
    const files = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: `token=${cookie.value}` } });
    expect(files.status).toBe(200);
  });

  it('when the username is typed in another case, then the login succeeds and answers the name as registered', async () => {
    const res = await postLogin(json({ username: 'aLICE', password: DEFAULT_PASSWORD }));

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: { id: aliceId, username: 'Alice' } });
  });

  it('when the credentials are sent form-encoded, then the login succeeds as with JSON', async () => {
    const body = new URLSearchParams({ username: 'Alice', password: DEFAULT_PASSWORD }).toString();
    const res = await postLogin(body, 'application/x-www-form-urlencoded');

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: { id: aliceId, username: 'Alice' } });
    expect(sessionCookies(res)).toHaveLength(1);
  });

  it('when the password is wrong or the user unknown, then both answer the same 401 and set no cookie', async () => {
    const wrongPassword = await postLogin(json({ username: 'Alice', password: 'not the password' }));
    const unknownUser = await postLogin(json({ username: 'nobody', password: DEFAULT_PASSWORD }));

    for (const res of [wrongPassword, unknownUser]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const bodies = [await wrongPassword.text(), await unknownUser.text()];
    expect(JSON.parse(bodies[0])).toEqual({ error: 'Invalid username or password' });
    expect(bodies[1]).toBe(bodies[0]);
  });

  it('when the username or password holds a NUL or other control character, then the same 401 as any wrong login, never a 500', async () => {
    for (const body of [
      { username: 'Ali\u0000ce', password: DEFAULT_PASSWORD },
      { username: 'Alice', password: `${DEFAULT_PASSWORD}\u0000` },
      { username: 'Alice\n', password: DEFAULT_PASSWORD },
    ]) {
      const res = await postLogin(json(body));
      expect(res.status, JSON.stringify(body)).toBe(401);
      expect(await res.json()).toEqual({ error: 'Invalid username or password' });
    }
  });

  it('when the password is right except for its case, then it is refused', async () => {
    const res = await postLogin(json({ username: 'Alice', password: DEFAULT_PASSWORD.toUpperCase() }));

    expect(res.status).toBe(401);
  });

  it('when the password is 72 bytes long and the attempt adds more after it, then it is refused (bcrypt would read only the first 72)', async () => {
    const password = 'p'.repeat(72);
    await app.createUser('Longpass', password);
    expect((await postLogin(json({ username: 'Longpass', password: `${password}x` }))).status).toBe(401);
    expect((await postLogin(json({ username: 'Longpass', password }))).status).toBe(200);
  });

  it.each([
    ['JSON that does not parse', '{"username": "Alice", "password": ', 'application/json'],
    ['a JSON array', '["Alice", "pw"]', 'application/json'],
    ['an empty object', '{}', 'application/json'],
    ['a password that is not a string', json({ username: 'Alice', password: 12345678 }), 'application/json'],
    ['a form without a password', 'username=Alice', 'application/x-www-form-urlencoded'],
  ])('when the body is %s, then it answers 400 with a JSON error and sets no cookie', async (_what, body, type) => {
    const res = await postLogin(body, type);

    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const payload = await res.json();
    expect(Object.keys(payload)).toEqual(['error']);
    expect(typeof payload.error).toBe('string');
    expect(payload.error).not.toContain('    at ');
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it.each([
    ['a password that is null', { username: 'Alice', password: null }, 'Password must be a string'],
    ['a username that is a number', { username: 42, password: 'pw' }, 'Username must be a string'],
    [
      'a username over 256 characters',
      { username: 'u'.repeat(257), password: 'pw' },
      'Username must be at most 256 characters',
    ],
    [
      'a password over 1024 characters',
      { username: 'Alice', password: 'p'.repeat(1025) },
      'Password must be at most 1024 characters',
    ],
  ])("when the body has %s, then 400 names the field in words, not the validator's", async (_what, body, message) => {
    const res = await postLogin(json(body));

    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: message });
  });

  it('when a login succeeds, then a session row is recorded for the user', async () => {
    const before = await app.rows('select count(*) as n from sessions where user_id = ?', [aliceId]);
    await postLogin(json({ username: 'Alice', password: DEFAULT_PASSWORD }));
    const after = await app.rows('select count(*) as n from sessions where user_id = ?', [aliceId]);

    expect(Number(after[0].n)).toBe(Number(before[0].n) + 1);
  });
});

describe('the session cookie', () => {
  it('when a user logs in over http, then the cookie is token=<jwt>; HttpOnly; Path=/; SameSite=Lax; Max-Age=2592000 and not Secure', async () => {
    const res = await postLogin(json({ username: 'Alice', password: DEFAULT_PASSWORD }));
    const cookies = sessionCookies(res);

    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie.attributes).toHaveProperty('httponly');
    expect(cookie.attributes.path).toBe('/');
    expect(cookie.attributes.samesite?.toLowerCase()).toBe('lax');
    expect(cookie.attributes['max-age']).toBe('2592000');
    expect(cookie.attributes).not.toHaveProperty('secure');
    expect(cookie.attributes).not.toHaveProperty('domain');
  });

  it('when a user logs in, then the token is an HS256 JWT whose sub is the user id and whose lifetime equals the cookie Max-Age', async () => {
    const before = now();
    const res = await postLogin(json({ username: 'Alice', password: DEFAULT_PASSWORD }));
    const [cookie] = sessionCookies(res);
    const claims = claimsOf(cookie.value);

    expect(headerOf(cookie.value).alg).toBe('HS256');
    expect(claims.sub).toBe(aliceId);
    expect(claims.iat).toBeGreaterThanOrEqual(before - 1);
    expect(claims.iat).toBeLessThanOrEqual(now() + 1);
    expect(claims.exp! - claims.iat!).toBe(2592000);
    expect(claims).not.toHaveProperty('password');
  });

  it('when BASE_URL is https, then the session cookie is Secure', async () => {
    const secureApp = await startApp({ BASE_URL: 'https://files.example.com' });
    try {
      await secureApp.createUser('carol');
      const res = await postLogin(
        json({ username: 'carol', password: DEFAULT_PASSWORD }),
        'application/json',
        secureApp,
      );

      expect(res.status).toBe(200);
      const [cookie] = sessionCookies(res);
      expect(cookie.attributes).toHaveProperty('secure');
      expect(cookie.attributes).toHaveProperty('httponly');
      expect(cookie.attributes['max-age']).toBe('2592000');
    } finally {
      await secureApp.close();
    }
  });

  it.each([
    ['12h', 43200],
    // The longest allowed (10 years): a date that far holds, and the cookie opens the API.
    ['3650d', 315360000],
  ])(
    'when JWT_EXPIRES_IN=%s, then a login answers 200, the cookie Max-Age is %i and the token exp - iat is the same',
    async (lifetime, seconds) => {
      const otherApp = await startApp({ JWT_EXPIRES_IN: lifetime });
      try {
        await otherApp.createUser('dave');
        const res = await postLogin(
          json({ username: 'dave', password: DEFAULT_PASSWORD }),
          'application/json',
          otherApp,
        );

        expect(res.status).toBe(200);
        const [cookie] = sessionCookies(res);
        expect(cookie.attributes['max-age']).toBe(String(seconds));
        const claims = claimsOf(cookie.value);
        expect(claims.exp! - claims.iat!).toBe(seconds);
        const files = await fetch(`${otherApp.url}/api/v1/files`, { headers: { cookie: `token=${cookie.value}` } });
        expect(files.status).toBe(200);
      } finally {
        await otherApp.close();
      }
    },
  );
});

describe('POST /api/v1/auth/logout', () => {
  it('when a logged-in user logs out, then it answers 200 {ok:true}, clears the cookie and the token stops working', async () => {
    const cookie = await app.login('Alice');

    const res = await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const cleared = sessionCookies(res);
    expect(cleared).toHaveLength(1);
    expect(cleared[0].value).toBe('');
    expect(cleared[0].attributes['max-age']).toBe('0');
    expect(cleared[0].attributes.path).toBe('/');
    const after = await fetch(`${app.url}/api/v1/files`, { headers: { cookie } });
    expect(after.status).toBe(401);
  });

  it.each([
    ['no cookie at all', undefined],
    ['a cookie that is not a token', 'token=garbage'],
  ])(
    'when the request carries %s, then logout still answers 200 {ok:true} and clears the cookie',
    async (_what, cookie) => {
      const res = await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: cookie ? { cookie } : {} });

      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      expect(sessionCookies(res).map((c) => c.attributes['max-age'])).toEqual(['0']);
    },
  );
});
