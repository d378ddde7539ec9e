// Personal access tokens through the API (issue 15): created, listed and revoked with a session;
// `Authorization: Bearer` opens the file routes and never sets a cookie; a revoked, expired or
// unknown token, or one whose user is gone, is a 401 at once. Runs on both backends.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileForm, startApp, TestClock, type TestApp } from '../helpers/app';

let app: TestApp;
let clock: TestClock;
let cookie: string;
let otherCookie: string;

beforeAll(async () => {
  clock = new TestClock();
  app = await startApp({}, { clock });
  await app.createUser('scripter');
  await app.createUser('someone');
  cookie = await app.login('scripter');
  otherCookie = await app.login('someone');
});
afterAll(() => app.close());

async function createToken(body: Record<string, unknown> = { name: 'ci' }, headers: Record<string, string> = { cookie }) {
  return fetch(`${app.url}/api/v1/tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function newToken(body: Record<string, unknown> = { name: 'ci' }, who = cookie): Promise<{ token: string; id: string }> {
  const res = await createToken(body, { cookie: who });
  expect(res.status).toBe(201);
  const created = await res.json();
  return { token: created.token, id: created.apiToken.id };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the token life cycle', () => {
  it('when a user creates a token with a session, then it is shown once with its prefix and 256 random bits, and only its SHA-256 is stored', async () => {
    const res = await createToken({ name: 'laptop backup', expiresInDays: 30 });
    expect(res.status).toBe(201);
    const { token, apiToken } = await res.json();
    expect(token).toMatch(/^fsk_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).toMatchObject({ name: 'laptop backup', start: token.slice(0, 10), lastUsedAt: null });
    expect(Date.parse(apiToken.expiresAt) - clock.now()).toBeGreaterThan(29.9 * 86400_000);
    const rows = await app.rows('select * from api_tokens where id = ?', [apiToken.id]);
    expect(rows[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    // Never again: the list shows its start only.
    const list = await (await fetch(`${app.url}/api/v1/tokens`, { headers: { cookie } })).json();
    expect(JSON.stringify(list)).not.toContain(token);
    expect(list.tokens.find((t: { id: string }) => t.id === apiToken.id)).toMatchObject({ name: 'laptop backup', start: token.slice(0, 10) });
  });

  it('when a token is used, then it lists, uploads and deletes files, sets no cookie, and its last use shows in the list', async () => {
    const { token, id } = await newToken({ name: 'sharex' });
    const upload = await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: bearer(token), body: fileForm('from a script', 'script.txt', 'text/plain') });
    expect(upload.status).toBe(201);
    expect(upload.headers.getSetCookie()).toEqual([]);
    const { file, url } = await upload.json();
    expect(url).toBe(`${app.url}/f/${file.id}`);

    const list = await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) });
    expect(list.status).toBe(200);
    expect(list.headers.getSetCookie()).toEqual([]);
    expect((await list.json()).files.map((f: { id: string }) => f.id)).toContain(file.id);

    const changed = await fetch(`${app.url}/api/v1/files/${file.id}`, {
      method: 'PATCH',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ maxDownloads: 2 }),
    });
    expect(changed.status).toBe(200);
    const removed = await fetch(`${app.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: bearer(token) });
    expect(removed.status).toBe(200);
    expect(await app.storedFiles()).not.toContain(file.storedName);

    const tokens = (await (await fetch(`${app.url}/api/v1/tokens`, { headers: { cookie } })).json()).tokens;
    const used = tokens.find((t: { id: string }) => t.id === id);
    expect(Math.abs(Date.parse(used.lastUsedAt) - clock.now())).toBeLessThan(60_000);
  });

  it('when a request carries a token and a session cookie due for renewal, then the cookie is neither read nor renewed', async () => {
    // Sessions of 30 minutes are always under the one-hour renewal threshold: every cookie request renews.
    const renewing = await startApp({ JWT_EXPIRES_IN: '30m' });
    try {
      await renewing.createUser('renewer');
      const sessionCookie = await renewing.login('renewer');
      const created = await fetch(`${renewing.url}/api/v1/tokens`, {
        method: 'POST',
        headers: { cookie: sessionCookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'both' }),
      });
      const { token } = await created.json();
      const cookieOnly = await fetch(`${renewing.url}/api/v1/files`, { headers: { cookie: sessionCookie } });
      expect(cookieOnly.headers.getSetCookie()).toHaveLength(1);
      const both = await fetch(`${renewing.url}/api/v1/files`, { headers: { cookie: sessionCookie, ...bearer(token) } });
      expect(both.status).toBe(200);
      expect(both.headers.getSetCookie()).toEqual([]);
    } finally {
      await renewing.close();
    }
  });

  it('when a token is revoked, then the next request with it is 401, and revoking it again is 404', async () => {
    const { token, id } = await newToken();
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
    const revoked = await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie } });
    expect(revoked.status).toBe(200);
    const refused = await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'Unauthorized' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token", error_description="Invalid or expired token"');
    expect((await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(404);
  });

  it("when someone revokes another user's token, then 404 and it keeps working", async () => {
    const { token, id } = await newToken();
    expect((await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie: otherCookie } })).status).toBe(404);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
  });
});

describe('the 401 cases', () => {
  it('when a token has expired, then 401 at once', async () => {
    const { token } = await newToken({ name: 'short', expiresInDays: 1 });
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
    clock.advance(86400_000 + 1000);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(401);
  });

  it('when the token is unknown, malformed, or its user is gone, then 401 {"error":"Unauthorized"} with the reason in WWW-Authenticate, on the fast upload path too', async () => {
    for (const headers of [bearer(`fsk_${'A'.repeat(43)}`), { authorization: 'Bearer' }, { authorization: 'Bearer a b' }]) {
      for (const res of [
        await fetch(`${app.url}/api/v1/files`, { headers }),
        await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers, body: fileForm('refused', 'refused.txt', 'text/plain') }),
      ]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'Unauthorized' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="(invalid_token|invalid_request)", error_description="[^"]+"$/);
      }
    }
    const doomedId = await app.createUser('doomed');
    const doomedCookie = await app.login('doomed');
    const { token } = await newToken({ name: 'orphan' }, doomedCookie);
    await app.rows('delete from users where id = ?', [doomedId]);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(401);
  });

  it('when a request carries a valid cookie and a bad token, then it is judged by the token: 401', async () => {
    const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie, ...bearer('fsk_not-a-real-token') } });
    expect(res.status).toBe(401);
  });

  it('when a token tries to manage tokens, then 403: a token cannot mint tokens', async () => {
    const { token, id } = await newToken();
    const minted = await createToken({ name: 'more' }, bearer(token));
    expect(minted.status).toBe(403);
    expect((await minted.json()).error).toContain('needs a login session');
    expect((await fetch(`${app.url}/api/v1/tokens`, { headers: bearer(token) })).status).toBe(403);
    expect((await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: bearer(token) })).status).toBe(403);
    const [{ count }] = await app.rows('select count(*) as count from api_tokens where name = ?', ['more']);
    expect(Number(count)).toBe(0);
  });

  it('when a token request that changes something comes with a foreign Origin, then it is refused 403 like any cross-site request and changes nothing; without the Origin it works', async () => {
    const { token } = await newToken();
    const upload = (headers: Record<string, string>) =>
      fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { ...bearer(token), ...headers }, body: fileForm('cross', 'cross.txt', 'text/plain') });
    const before = (await app.rows('select id from files')).length;
    const foreign = await upload({ origin: 'https://elsewhere.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: 'Cross-site request refused' });
    expect((await app.rows('select id from files')).length).toBe(before);
    const script = await upload({});
    expect(script.status).toBe(201);
    const { file } = await script.json();
    const deleted = await fetch(`${app.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: { ...bearer(token), 'sec-fetch-site': 'cross-site' } });
    expect(deleted.status).toBe(403);
    expect((await app.rows('select id from files where id = ?', [file.id])).length).toBe(1);
  });

  it('when a token is created with a bad name or lifetime, then 400 with a clear error', async () => {
    for (const [body, message] of [
      [{}, 'name is required'],
      [{ name: '  ' }, 'name is required'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
      [{ name: 'nul\u0000byte' }, 'name must not contain control characters'],
      [{ name: 'new\nline' }, 'name must not contain control characters'],
      [{ name: 'x', expiresInDays: 0 }, 'expiresInDays must be a whole number from 1 to 3650'],
      [{ name: 'x', scope: 'all' }, 'Unrecognized key'],
    ] as const) {
      const res = await createToken(body);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toContain(message);
    }
    expect((await createToken({ name: 'x' }, {})).status).toBe(401);
  });
});
