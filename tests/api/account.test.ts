// The account through the API (ADR 0016): a user's sessions (listed with browser, address,
// created and last seen; one or all logged out) and changing the password (other sessions
// logged out, this one kept). Session management needs a session: a token gets 403. Runs on
// both backends.
import { cookieFrom, DEFAULT_PASSWORD, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { claimsOf, tokenOf } from '../helpers/tokens';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

const clock = new TestClock();

const sidOf = (cookie: string) => claimsOf(tokenOf(cookie)).sid!;

/** The account's requests to `app`, and new users to make them as. */
function accountRequests(app: TestApp) {
  let userCount = 0;
  /** A new user of its own for each test, so that sessions never leak between tests. */
  async function newUser(): Promise<string> {
    const name = `account${++userCount}`;
    await app.createUser(name);
    return name;
  }

  async function loginAs(username: string, userAgent = FIREFOX, password = DEFAULT_PASSWORD): Promise<Response> {
    return fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ username, password }),
    });
  }

  async function sessionOf(username: string, userAgent = FIREFOX): Promise<string> {
    const res = await loginAs(username, userAgent);
    expect(res.status).toBe(200);
    return cookieFrom(res);
  }

  const get = (path: string, headers: Record<string, string>) => fetch(`${app.url}/api/v1${path}`, { headers });
  const del = (path: string, headers: Record<string, string>) =>
    fetch(`${app.url}/api/v1${path}`, { method: 'DELETE', headers });
  const listFilesWith = (cookie: string) => get('/files', { cookie });

  function changePassword(cookie: string, body: Record<string, unknown>) {
    return fetch(`${app.url}/api/v1/me/password`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function createToken(cookie: string): Promise<string> {
    const res = await fetch(`${app.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'script' }),
    });
    expect(res.status).toBe(201);
    return (await res.json()).token;
  }

  return { newUser, loginAs, sessionOf, get, del, listFilesWith, changePassword, createToken };
}

const test = base.extend('account', { scope: 'file' }, ({ app }) => accountRequests(app));
test.override('appOptions', { clock });

describe('the sessions list', () => {
  test('when a user is logged in from two browsers, then each session shows its browser, address, login and last sight, and the caller’s own is marked', async ({
    account: { newUser, sessionOf, get },
  }) => {
    const name = await newUser();
    const laptop = await sessionOf(name, FIREFOX);
    const phone = await sessionOf(name, IPHONE);
    const res = await get('/sessions', { cookie: laptop });
    expect(res.status).toBe(200);
    const { sessions } = await res.json();
    expect(sessions).toHaveLength(2);
    const mine = sessions.find((s: { id: string }) => s.id === sidOf(laptop));
    const other = sessions.find((s: { id: string }) => s.id === sidOf(phone));
    expect(mine).toMatchObject({ browser: 'Firefox 133 on Linux', address: '127.0.0.1', current: true });
    expect(other).toMatchObject({ browser: 'Safari 17 on iOS', address: '127.0.0.1', current: false });
    for (const session of sessions) {
      expect(Math.abs(Date.parse(session.createdAt) - clock.now())).toBeLessThan(60_000);
      expect(Math.abs(Date.parse(session.lastSeenAt) - clock.now())).toBeLessThan(60_000);
      expect(Date.parse(session.expiresAt)).toBeGreaterThan(clock.now());
    }
    // Another user sees only their own.
    const stranger = await sessionOf(await newUser());
    const theirs = (await (await get('/sessions', { cookie: stranger })).json()).sessions;
    expect(theirs.map((s: { id: string }) => s.id)).toEqual([sidOf(stranger)]);
  });

  test('when a session is used again within a minute, then its last sight is not rewritten; a minute later it is', async ({
    app,
    account: { newUser, sessionOf, get, listFilesWith },
  }) => {
    const name = await newUser();
    const cookie = await sessionOf(name);
    const sid = sidOf(cookie);
    const lastSeen = async () => Date.parse((await (await get('/sessions', { cookie })).json()).sessions[0].lastSeenAt);
    const atLogin = await lastSeen();
    clock.advance(30_000);
    await listFilesWith(cookie);
    expect(await lastSeen()).toBe(atLogin);
    clock.advance(31_000);
    await listFilesWith(cookie);
    const later = await lastSeen();
    expect(later - atLogin).toBeGreaterThanOrEqual(61_000);
    const rows = await app.rows('select last_seen_at from sessions where id = ?', [sid]);
    expect(rows).toHaveLength(1);
  });

  test('when a script logs in without naming a browser, then the list says so rather than guessing', async ({
    account: { newUser, sessionOf, get },
  }) => {
    const name = await newUser();
    const viaCurl = await sessionOf(name, 'curl/8.5.0');
    const viaNothing = await sessionOf(name, '');
    const { sessions } = await (await get('/sessions', { cookie: viaCurl })).json();
    expect(sessions.find((s: { id: string }) => s.id === sidOf(viaCurl)).browser).toBe('curl 8.5.0');
    expect(sessions.find((s: { id: string }) => s.id === sidOf(viaNothing)).browser).toBe('Unknown browser');
  });

  test('when a session has expired, then it is not listed', async ({ app, account: { newUser, sessionOf, get } }) => {
    const name = await newUser();
    const cookie = await sessionOf(name);
    const stale = await sessionOf(name);
    const past = clock.now() - 1000;
    await app.rows('update sessions set expires_at = ? where id = ?', [
      app.config.database.dialect === 'sqlite' ? past : new Date(past),
      sidOf(stale),
    ]);
    const { sessions } = await (await get('/sessions', { cookie })).json();
    expect(sessions.map((s: { id: string }) => s.id)).toEqual([sidOf(cookie)]);
  });
});

describe('logging sessions out', () => {
  test('when a user logs out another of their sessions, then that session is refused at its next request and this one goes on', async ({
    app,
    account: { newUser, sessionOf, del, listFilesWith },
  }) => {
    const name = await newUser();
    const laptop = await sessionOf(name);
    const phone = await sessionOf(name, IPHONE);
    const res = await del(`/sessions/${sidOf(phone)}`, { cookie: laptop });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await listFilesWith(phone)).status).toBe(401);
    expect((await listFilesWith(laptop)).status).toBe(200);
    expect(await app.rows('select id from sessions where id = ?', [sidOf(phone)])).toEqual([]);
  });

  test('when a user logs out the session they are using, then its cookie is cleared and it no longer works', async ({
    account: { newUser, sessionOf, del, listFilesWith },
  }) => {
    const name = await newUser();
    const cookie = await sessionOf(name);
    const res = await del(`/sessions/${sidOf(cookie)}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('token=;') && /Max-Age=0/i.test(c))).toBe(true);
    expect((await listFilesWith(cookie)).status).toBe(401);
  });

  test('when a user names another user’s session, then it is 404 and that session lives on', async ({
    account: { newUser, sessionOf, del, listFilesWith },
  }) => {
    const victim = await sessionOf(await newUser());
    const attacker = await sessionOf(await newUser());
    const res = await del(`/sessions/${sidOf(victim)}`, { cookie: attacker });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Session not found' });
    expect((await listFilesWith(victim)).status).toBe(200);
  });

  test('when a user logs out everywhere, then every one of their sessions stops working, other users’ do not, and API tokens keep working', async ({
    account: { newUser, sessionOf, get, del, listFilesWith, createToken },
  }) => {
    const name = await newUser();
    const cookies = [await sessionOf(name), await sessionOf(name, IPHONE), await sessionOf(name, 'curl/8.5.0')];
    const bystander = await sessionOf(await newUser());
    const token = await createToken(cookies[0]);
    const res = await del('/sessions', { cookie: cookies[1] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, revoked: 3 });
    expect(res.headers.getSetCookie().some((c) => c.startsWith('token=;'))).toBe(true);
    for (const cookie of cookies) expect((await listFilesWith(cookie)).status).toBe(401);
    expect((await listFilesWith(bystander)).status).toBe(200);
    expect((await get('/files', { authorization: `Bearer ${token}` })).status).toBe(200);
  });
});

describe('changing the password', () => {
  const NEW_PASSWORD = 'a much better passphrase';

  test('when a user gives the right current password and the new one twice, then it changes, other sessions are logged out and this one stays', async ({
    app,
    account: { newUser, loginAs, sessionOf, get, listFilesWith, changePassword, createToken },
  }) => {
    const name = await newUser();
    const here = await sessionOf(name);
    const elsewhere = [await sessionOf(name, IPHONE), await sessionOf(name, 'curl/8.5.0')];
    const token = await createToken(here);
    const res = await changePassword(here, {
      currentPassword: DEFAULT_PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, otherSessionsRevoked: 2 });
    for (const cookie of elsewhere) expect((await listFilesWith(cookie)).status).toBe(401);
    expect((await listFilesWith(here)).status).toBe(200);
    expect((await loginAs(name, FIREFOX, DEFAULT_PASSWORD)).status).toBe(401);
    expect((await loginAs(name, FIREFOX, NEW_PASSWORD)).status).toBe(200);
    // Tokens are for scripts and are revoked one by one on the same page (ADR 0016).
    expect((await get('/files', { authorization: `Bearer ${token}` })).status).toBe(200);
    const [row] = await app.rows('select password_hash from users where username = ?', [name]);
    expect(String(row.password_hash)).toMatch(/^\$2[aby]\$/);
    expect(String(row.password_hash)).not.toContain(NEW_PASSWORD);
  });

  test.for<[Record<string, unknown>, string]>([
    [
      { currentPassword: 'not my password', newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
      'The current password is wrong',
    ],
    [
      { currentPassword: DEFAULT_PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: 'a much better passphrasE' },
      'The new password and its confirmation do not match',
    ],
    [
      { currentPassword: DEFAULT_PASSWORD, newPassword: 'short', confirmPassword: 'short' },
      'Password must be at least 8 characters long',
    ],
    [{ currentPassword: DEFAULT_PASSWORD, newPassword: 'é'.repeat(40) }, 'Password must be at most 72 bytes of UTF-8'],
    [
      { currentPassword: DEFAULT_PASSWORD, newPassword: DEFAULT_PASSWORD },
      'The new password must differ from the current one',
    ],
    [{ newPassword: NEW_PASSWORD }, 'currentPassword is required'],
    [
      { currentPassword: DEFAULT_PASSWORD, newPassword: NEW_PASSWORD, admin: true },
      "Unrecognized key(s) in object: 'admin'",
    ],
  ])(
    'when the change is %j, then it is a 400 saying why, and nothing changes',
    async ([body, message], { account: { newUser, loginAs, sessionOf, listFilesWith, changePassword } }) => {
      const name = await newUser();
      const here = await sessionOf(name);
      const elsewhere = await sessionOf(name, IPHONE);
      const res = await changePassword(here, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: message });
      expect((await listFilesWith(elsewhere)).status).toBe(200);
      expect((await loginAs(name)).status).toBe(200);
    },
  );

  test('when someone with the cookie guesses the current password again and again, then they are throttled like a login', async ({
    account: { newUser, loginAs, sessionOf, changePassword },
  }) => {
    const name = await newUser();
    const here = await sessionOf(name);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await changePassword(here, { currentPassword: `guess number ${i}`, newPassword: NEW_PASSWORD });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(statuses[5]).toBe(429);
    // Even the right password waits out the window now.
    const right = await changePassword(here, { currentPassword: DEFAULT_PASSWORD, newPassword: NEW_PASSWORD });
    expect(right.status).toBe(429);
    expect((await loginAs(name, FIREFOX, NEW_PASSWORD)).status).not.toBe(200);
  });
});

describe('who may manage the account', () => {
  test('when a request carries an API token, then the sessions and the password are refused with 403', async ({
    app,
    account: { newUser, sessionOf, get, del, listFilesWith, createToken },
  }) => {
    const name = await newUser();
    const cookie = await sessionOf(name);
    const bearer = { authorization: `Bearer ${await createToken(cookie)}` };
    const refusals = [
      await get('/sessions', bearer),
      await del(`/sessions/${sidOf(cookie)}`, bearer),
      await del('/sessions', bearer),
      await fetch(`${app.url}/api/v1/me/password`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ currentPassword: DEFAULT_PASSWORD, newPassword: 'a much better passphrase' }),
      }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(403);
      expect((await res.json()).error).toMatch(/needs a login session/);
    }
    expect((await listFilesWith(cookie)).status).toBe(200);
  });

  test('when nobody is logged in, then every account route is 401', async ({ app, account: { get, del } }) => {
    const responses = [
      await get('/sessions', {}),
      await del('/sessions/whatever', {}),
      await del('/sessions', {}),
      await fetch(`${app.url}/api/v1/me/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Unauthorized' });
    }
  });
});
