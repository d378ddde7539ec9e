// Which tokens open a session, and when a session is renewed (ADR 0002).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app';
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
let app: TestApp;
let userId: string;
let otherId: string;
/** A real login's token: its sid names a live session row. */
let realToken: string;
let sid: string;

beforeAll(async () => {
  app = await startApp();
  userId = await app.createUser('erin');
  otherId = await app.createUser('frank');
  realToken = tokenOf(await app.login('erin'));
  sid = claimsOf(realToken).sid!;
});
afterAll(() => app.close());

function listFiles(token: string) {
  return fetch(`${app.url}/api/v1/files`, { headers: { cookie: `token=${token}` } });
}

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ error: 'Unauthorized' });
}

/** Claims of a valid session of erin, expiring in `secondsLeft`. */
function claimsExpiringIn(secondsLeft: number, session = sid) {
  const t = now();
  return { sub: userId, sid: session, iat: t + secondsLeft - TTL, exp: t + secondsLeft };
}

describe('renewal', () => {
  it('when a valid token has less than 3600 s left, then GET /api/v1/files renews it with a full-lifetime cookie that works', async () => {
    const oldToken = await signToken(claimsExpiringIn(1800));

    const res = await listFiles(oldToken);

    expect(res.status).toBe(200);
    const cookies = sessionCookies(res);
    expect(cookies).toHaveLength(1);
    const [cookie] = cookies;
    expect(cookie.attributes['max-age']).toBe(String(TTL));
    expect(cookie.attributes).toHaveProperty('httponly');
    expect(cookie.attributes.path).toBe('/');
    expect(cookie.attributes.samesite?.toLowerCase()).toBe('lax');
    const claims = claimsOf(cookie.value);
    expect(claims.sub).toBe(userId);
    expect(claims.exp! - claims.iat!).toBe(TTL);
    expect(claims.exp!).toBeGreaterThanOrEqual(now() + TTL - 5);
    expect((await listFiles(cookie.value)).status).toBe(200);
  });

  it('when a session 10 minutes from its end is renewed, then its row lives for a full lifetime again', async () => {
    const agingSid = claimsOf(tokenOf(await app.login('erin'))).sid!;
    // The state of a session logged in 30 days minus 10 minutes ago.
    const expiresAt = (now() + 600) * 1000;
    // SQLite keeps times as milliseconds, PostgreSQL as timestamptz.
    await app.rows('update sessions set expires_at = ? where id = ?', [
      app.config.database.dialect === 'sqlite' ? expiresAt : new Date(expiresAt),
      agingSid,
    ]);

    const res = await listFiles(await signToken(claimsExpiringIn(600, agingSid)));
    expect(sessionCookies(res)).toHaveLength(1);

    const [row] = await app.rows('select expires_at from sessions where id = ?', [agingSid]);
    expect(Number(row.expires_at) / 1000).toBeGreaterThan(now() + TTL - 60);
  });

  it('when a valid token has more than 3600 s left, then no cookie is set', async () => {
    const res = await listFiles(await signToken(claimsExpiringIn(7200)));

    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('when a fresh login token is used, then no cookie is set', async () => {
    const res = await listFiles(realToken);

    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('when a token with less than 3600 s left is sent to POST /api/v1/auth/logout, then the only cookie set is the cleared one', async () => {
    const login = await app.login('erin');
    const logoutSid = claimsOf(tokenOf(login)).sid!;
    const nearlyExpired = await signToken(claimsExpiringIn(1800, logoutSid));

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
  it('when a token is built like the refused ones below but correctly, then it is accepted (the control case)', async () => {
    const res = await listFiles(await signToken(claimsExpiringIn(7200)));

    expect(res.status).toBe(200);
  });

  const cases: [string, () => Promise<string> | string][] = [
    ['its signature is tampered with', () => tamperSignature(realToken)],
    ['its payload names another user under the same signature', () => tamperPayload(realToken, { sub: otherId })],
    ['it is unsigned (alg none)', () => unsignedToken(claimsExpiringIn(7200))],
    [
      'it is signed with another secret',
      () => signToken(claimsExpiringIn(7200), { secret: 'another-secret-that-is-long-enough-0123456789' }),
    ],
    ['it is HS512 with the right secret', () => signToken(claimsExpiringIn(7200), { alg: 'HS512' })],
    ['it is HS384 with the right secret', () => signToken(claimsExpiringIn(7200), { alg: 'HS384' })],
    ['it expired', () => signToken(claimsExpiringIn(-10))],
    ['it has no exp', () => signToken({ sub: userId, sid, iat: now() })],
    ['it has no iat', () => signToken({ sub: userId, sid, exp: now() + 7200 })],
    ['it has no sub', () => signToken({ sid, iat: now(), exp: now() + 7200 })],
    [
      'it names a session that does not exist',
      () => signToken({ sub: userId, sid: 'no-such-session', iat: now(), exp: now() + 7200 }),
    ],
    [
      'it pairs a real session with another user',
      () => signToken({ sub: otherId, sid, iat: now(), exp: now() + 7200 }),
    ],
    ['it is not a JWT at all', () => 'not-a-jwt'],
  ];

  it.each(cases)(
    'when %s, then the API answers 401 {"error":"Unauthorized"} and sets no cookie',
    async (_what, make) => {
      const res = await listFiles(await make());

      expect(res.headers.getSetCookie()).toEqual([]);
      await expectUnauthorized(res);
    },
  );

  it('when a nearly expired token is forged with another secret, then it is refused and not renewed', async () => {
    const res = await listFiles(
      await signToken(claimsExpiringIn(600), { secret: 'another-secret-that-is-long-enough-0123456789' }),
    );

    expect(res.headers.getSetCookie()).toEqual([]);
    await expectUnauthorized(res);
  });

  it('when the user of a valid token is deleted, then the token is refused', async () => {
    const doomedId = await app.createUser('doomed');
    const cookie = await app.login('doomed');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);

    await app.rows('delete from users where id = ?', [doomedId]);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie } }));
  });

  it('when the user is deleted by a tool that does not cascade (foreign keys off, as in the sqlite3 shell), then the token is refused', async () => {
    const ghostId = await app.createUser('ghost');
    const cookie = await app.login('ghost');

    await deleteWithoutCascade('users', ghostId);
    expect(await app.rows('select id from sessions where user_id = ?', [ghostId])).toHaveLength(1);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie } }));
  });

  it("when one session of a user logs out, then its token is revoked and the user's other session still works", async () => {
    const first = await app.login('erin');
    const second = await app.login('erin');

    const out = await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: first } });
    expect(out.status).toBe(200);

    await expectUnauthorized(await fetch(`${app.url}/api/v1/files`, { headers: { cookie: first } }));
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie: second } })).status).toBe(200);
  });

  it('when the token cookie comes among other cookies, then it is still recognised', async () => {
    const res = await fetch(`${app.url}/api/v1/files`, {
      headers: { cookie: `theme=dark; token=${realToken}; lang=fr` },
    });

    expect(res.status).toBe(200);
  });
});

describe('tokens checked once are remembered (server/auth/tokens.ts)', () => {
  it('when an accepted token reaches its expiry, then it is refused from that second on', async () => {
    const shortLived = await signToken(claimsExpiringIn(2));
    expect((await listFiles(shortLived)).status).toBe(200);
    const { exp } = claimsOf(shortLived);
    while (Date.now() / 1000 < exp!) await new Promise((resolve) => setTimeout(resolve, 100));

    await expectUnauthorized(await listFiles(shortLived));
  });

  it('when an accepted token is sent to an instance of the same database with another secret, then it is refused there', async () => {
    expect((await listFiles(realToken)).status).toBe(200);
    const other = await startApp({ ...app.env, SESSION_SECRET: 'another-secret-that-is-long-enough-0123456789' });
    try {
      await expectUnauthorized(await fetch(`${other.url}/api/v1/files`, { headers: { cookie: `token=${realToken}` } }));
    } finally {
      await other.close();
    }
  });
});

/** Deletes a row with foreign-key checks off for that one statement's connection. */
async function deleteWithoutCascade(table: 'users', id: string): Promise<void> {
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
