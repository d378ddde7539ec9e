// Which tokens open a session, and when a session is renewed (ADR 0002).
import { startApp, type TestApp } from '../helpers/app';
import { test as base, describe, expect, registeredUser } from '../helpers/fixtures';
import { queryPostgres } from '../helpers/outside-reader';
import {
  claimsOf,
  now,
  sessionCookies,
  signToken,
  tamperPayload,
  tamperSignature,
  tokenOf,
  unsignedToken,
} from '../helpers/tokens';

const TTL = 2592000;

/** A user's real login, and another user. */
interface Session {
  userId: string;
  otherId: string;
  /** A real login's token: its sid names a live session row. */
  realToken: string;
  sid: string;
}

const test = base.extend('session', { scope: 'file' }, ({ alice, bob }): Session => {
  const realToken = tokenOf(alice.cookie);
  return { userId: alice.id, otherId: bob.id, realToken, sid: claimsOf(realToken).sid! };
});

function listFiles(app: TestApp, token: string) {
  return fetch(`${app.url}/api/v1/files`, { headers: { cookie: `token=${token}` } });
}

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ error: 'Unauthorized' });
}

/** Claims of a valid session of the user, expiring in `secondsLeft`. */
function claimsExpiringIn({ userId, sid }: Session, secondsLeft: number, session = sid) {
  const t = now();
  return { sub: userId, sid: session, iat: t + secondsLeft - TTL, exp: t + secondsLeft };
}

describe('renewal', () => {
  test('when a valid token has less than 3600 s left, then GET /api/v1/files renews it with a full-lifetime cookie that works', async ({
    app,
    session,
  }) => {
    const oldToken = await signToken(claimsExpiringIn(session, 1800));

    const res = await listFiles(app, oldToken);

    expect(res.status).toBe(200);
    const cookies = sessionCookies(res);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie.attributes['max-age']).toBe(String(TTL));
    expect(cookie.attributes).toHaveProperty('httponly');
    expect(cookie.attributes.path).toBe('/');
    expect(cookie.attributes.samesite?.toLowerCase()).toBe('lax');
    const claims = claimsOf(cookie.value);
    expect(claims.sub).toBe(session.userId);
    expect(claims.exp! - claims.iat!).toBe(TTL);
    expect(claims.exp!).toBeGreaterThanOrEqual(now() + TTL - 5);
    expect((await listFiles(app, cookie.value)).status).toBe(200);
  });

  test('when a session 10 minutes from its end is renewed, then its row lives for a full lifetime again', async ({
    app,
    alice,
    session,
  }) => {
    const agingSid = claimsOf(tokenOf(await app.login(alice.username))).sid!;
    // The state of a session logged in 30 days minus 10 minutes ago.
    const expiresAt = (now() + 600) * 1000;
    // SQLite keeps times as milliseconds, PostgreSQL as timestamptz.
    await app.rows('update sessions set expires_at = ? where id = ?', [
      app.config.database.dialect === 'sqlite' ? expiresAt : new Date(expiresAt),
      agingSid,
    ]);

    const res = await listFiles(app, await signToken(claimsExpiringIn(session, 600, agingSid)));
    expect(sessionCookies(res)).toHaveLength(1);

    const [row] = await app.rows('select expires_at from sessions where id = ?', [agingSid]);
    expect(Number(row.expires_at) / 1000).toBeGreaterThan(now() + TTL - 60);
  });

  test('when a valid token has more than 3600 s left, then no cookie is set', async ({ app, session }) => {
    const res = await listFiles(app, await signToken(claimsExpiringIn(session, 7200)));

    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  test('when a fresh login token is used, then no cookie is set', async ({ app, session: { realToken } }) => {
    const res = await listFiles(app, realToken);

    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  test('when a token with less than 3600 s left is sent to POST /api/v1/auth/logout, then the only cookie set is the cleared one', async ({
    app,
    alice,
    session,
  }) => {
    const login = await app.login(alice.username);
    const logoutSid = claimsOf(tokenOf(login)).sid!;
    const nearlyExpired = await signToken(claimsExpiringIn(session, 1800, logoutSid));

    const res = await fetch(`${app.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: `token=${nearlyExpired}` },
    });

    expect(res.status).toBe(200);
    const cookies = sessionCookies(res);
    expect(cookies).toHaveLength(1);
    expect(cookies[0].value).toBe('');
    expect(cookies[0].attributes['max-age']).toBe('0');
  });
});

describe('tokens that are refused', () => {
  test('when a token is built like the refused ones below but correctly, then it is accepted (the control case)', async ({
    app,
    session,
  }) => {
    const res = await listFiles(app, await signToken(claimsExpiringIn(session, 7200)));

    expect(res.status).toBe(200);
  });

  const cases: [string, (session: Session) => Promise<string> | string][] = [
    ['its signature is tampered with', ({ realToken }) => tamperSignature(realToken)],
    [
      'its payload names another user under the same signature',
      ({ otherId, realToken }) => tamperPayload(realToken, { sub: otherId }),
    ],
    ['it is unsigned (alg none)', (session) => unsignedToken(claimsExpiringIn(session, 7200))],
    [
      'it is signed with another secret',
      (session) =>
        signToken(claimsExpiringIn(session, 7200), { secret: 'another-secret-that-is-long-enough-0123456789' }),
    ],
    ['it is HS512 with the right secret', (session) => signToken(claimsExpiringIn(session, 7200), { alg: 'HS512' })],
    ['it is HS384 with the right secret', (session) => signToken(claimsExpiringIn(session, 7200), { alg: 'HS384' })],
    ['it expired', (session) => signToken(claimsExpiringIn(session, -10))],
    ['it has no exp', ({ userId, sid }) => signToken({ sub: userId, sid, iat: now() })],
    ['it has no iat', ({ userId, sid }) => signToken({ sub: userId, sid, exp: now() + 7200 })],
    ['it has no sub', ({ sid }) => signToken({ sid, iat: now(), exp: now() + 7200 })],
    [
      'it names a session that does not exist',
      ({ userId }) => signToken({ sub: userId, sid: 'no-such-session', iat: now(), exp: now() + 7200 }),
    ],
    [
      'it pairs a real session with another user',
      ({ otherId, sid }) => signToken({ sub: otherId, sid, iat: now(), exp: now() + 7200 }),
    ],
    ['it is not a JWT at all', () => 'not-a-jwt'],
  ];

  test.for(cases)(
    'when %s, then the API answers 401 {"error":"Unauthorized"} and sets no cookie',
    async ([_what, make], { app, session }) => {
      const res = await listFiles(app, await make(session));

      expect(res.headers.getSetCookie()).toEqual([]);
      await expectUnauthorized(res);
    },
  );

  test('when a nearly expired token is forged with another secret, then it is refused and not renewed', async ({
    app,
    session,
  }) => {
    const res = await listFiles(
      app,
      await signToken(claimsExpiringIn(session, 600), { secret: 'another-secret-that-is-long-enough-0123456789' }),
    );

    expect(res.headers.getSetCookie()).toEqual([]);
    await expectUnauthorized(res);
  });

  test('when the user of a valid token is deleted, then the token is refused', async ({ app }) => {
    const { id: doomedId, cookie } = await registeredUser(app, 'doomed');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);

    await app.rows('delete from users where id = ?', [doomedId]);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie } }));
  });

  test('when the user is deleted by a tool that does not cascade (foreign keys off, as in the sqlite3 shell), then the token is refused', async ({
    app,
  }) => {
    const { id: ghostId, cookie } = await registeredUser(app, 'ghost');

    await deleteWithoutCascade(app, 'users', ghostId);
    expect(await app.rows('select id from sessions where user_id = ?', [ghostId])).toHaveLength(1);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie } }));
  });

  test("when one session of a user logs out, then its token is revoked and the user's other session still works", async ({
    app,
    alice,
  }) => {
    const first = await app.login(alice.username);
    const second = await app.login(alice.username);

    const out = await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: first } });
    expect(out.status).toBe(200);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie: first } }));
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie: second } })).status).toBe(200);
  });

  test('when the token cookie comes among other cookies, then it is still recognised', async ({
    app,
    session: { realToken },
  }) => {
    const res = await fetch(`${app.url}/api/v1/files`, {
      headers: { cookie: `theme=dark; token=${realToken}; lang=fr` },
    });

    expect(res.status).toBe(200);
  });
});

describe('tokens checked once are remembered (server/auth/tokens.ts)', () => {
  test('when an accepted token reaches its expiry, then it is refused from that second on', async ({
    app,
    session,
  }) => {
    const shortLived = await signToken(claimsExpiringIn(session, 2));
    expect((await listFiles(app, shortLived)).status).toBe(200);
    const { exp } = claimsOf(shortLived);
    while (Date.now() / 1000 < exp!) await new Promise((resolve) => setTimeout(resolve, 100));

    await expectUnauthorized(await listFiles(app, shortLived));
  });

  test('when an accepted token is sent to an instance of the same database with another secret, then it is refused there', async ({
    app,
    session: { realToken },
  }) => {
    expect((await listFiles(app, realToken)).status).toBe(200);
    const other = await startApp({ ...app.env, SESSION_SECRET: 'another-secret-that-is-long-enough-0123456789' });
    try {
      await expectUnauthorized(await fetch(`${other.url}/api/v1/files`, { headers: { cookie: `token=${realToken}` } }));
    } finally {
      await other.close();
    }
  });
});

/** Deletes a row with foreign-key checks off for that one statement's connection. */
async function deleteWithoutCascade(app: TestApp, table: 'users', id: string): Promise<void> {
  const { database } = app.config;
  if (database.dialect === 'postgresql') {
    await queryPostgres(database.url, [
      { sql: 'set session_replication_role = replica' },
      { sql: `delete from ${table} where id = ?`, params: [id] },
    ]);
    return;
  }
  await app.rows('PRAGMA foreign_keys = OFF');
  try {
    await app.rows(`delete from ${table} where id = ?`, [id]);
  } finally {
    await app.rows('PRAGMA foreign_keys = ON');
  }
}
