// Personal access tokens through the API (ADR 0015): created, listed and revoked with a session;
// `Authorization: Bearer` opens the file routes and never sets a cookie; a revoked, expired or
// unknown token, or one whose user is gone, is a 401 at once. Runs on both backends.
import { createHash } from 'node:crypto';
import { fileForm, startApp, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect, registeredUser } from '../helpers/fixtures';
import { OFFSET_OCTET_STREAM, TUS, uploadMetadata } from '../helpers/tus';

const clock = new TestClock();

/** Token and file requests to `app`, by default as the user whose session cookie is `cookie`. */
function tokenRequests(app: TestApp, cookie: string) {
  async function createToken(
    body: Record<string, unknown> = { name: 'ci' },
    headers: Record<string, string> = { cookie },
  ) {
    return fetch(`${app.url}/api/v1/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  async function newToken(
    body: Record<string, unknown> = { name: 'ci' },
    who = cookie,
  ): Promise<{ token: string; id: string }> {
    const res = await createToken(body, { cookie: who });
    expect(res.status).toBe(201);
    const created = await res.json();
    return { token: created.token, id: created.apiToken.id };
  }

  async function fileIdsOf(username: string): Promise<string[]> {
    const rows = await app.rows(
      'select f.id from files f join users u on u.id = f.user_id where u.username = ? order by f.id',
      [username],
    );
    return rows.map((row) => String(row.id));
  }

  const upload = (headers: Record<string, string>, name = 'cross.txt') =>
    fetch(`${app.url}/api/v1/files`, { method: 'POST', headers, body: fileForm('from elsewhere', name, 'text/plain') });

  return { createToken, newToken, fileIdsOf, upload };
}

const test = base.extend('tokens', { scope: 'file' }, ({ app, alice }) => tokenRequests(app, alice.cookie));
test.override('appOptions', { clock });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('the token life cycle', () => {
  test('when a user creates a token with a session, then it is shown once with its prefix and 256 random bits, and only its SHA-256 is stored', async ({
    app,
    alice,
    tokens: { createToken },
  }) => {
    const { cookie } = alice;
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
    expect(list.tokens.find((t: { id: string }) => t.id === apiToken.id)).toMatchObject({
      name: 'laptop backup',
      start: token.slice(0, 10),
    });
  });

  test('when a token is used, then it lists, uploads and deletes files, sets no cookie, and its last use shows in the list', async ({
    app,
    alice,
    tokens: { newToken },
  }) => {
    const { cookie } = alice;
    const { token, id } = await newToken({ name: 'sharex' });
    const upload = await fetch(`${app.url}/api/v1/files`, {
      method: 'POST',
      headers: bearer(token),
      body: fileForm('from a script', 'script.txt', 'text/plain'),
    });
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

  test('when a request carries a token and a session cookie due for renewal, then the cookie is neither read nor renewed', async () => {
    // Sessions of 30 minutes are always under the one-hour renewal threshold: every cookie request renews.
    const renewing = await startApp({ JWT_EXPIRES_IN: '30m' });
    try {
      const sessionCookie = (await registeredUser(renewing, 'renewer')).cookie;
      const created = await fetch(`${renewing.url}/api/v1/tokens`, {
        method: 'POST',
        headers: { cookie: sessionCookie, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'both' }),
      });
      const { token } = await created.json();
      const cookieOnly = await fetch(`${renewing.url}/api/v1/files`, { headers: { cookie: sessionCookie } });
      expect(cookieOnly.headers.getSetCookie()).toHaveLength(1);
      const both = await fetch(`${renewing.url}/api/v1/files`, {
        headers: { cookie: sessionCookie, ...bearer(token) },
      });
      expect(both.status).toBe(200);
      expect(both.headers.getSetCookie()).toEqual([]);
    } finally {
      await renewing.close();
    }
  });

  test('when a token is revoked, then the next request with it is 401, and revoking it again is 404', async ({
    app,
    alice,
    tokens: { newToken },
  }) => {
    const { cookie } = alice;
    const { token, id } = await newToken();
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
    const revoked = await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie } });
    expect(revoked.status).toBe(200);
    const refused = await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'Unauthorized' });
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="Invalid or expired token"',
    );
    expect((await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie } })).status).toBe(404);
  });

  test("when someone revokes another user's token, then 404 and it keeps working", async ({
    app,
    bob,
    tokens: { newToken },
  }) => {
    const otherCookie = bob.cookie;
    const { token, id } = await newToken();
    expect(
      (await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: { cookie: otherCookie } })).status,
    ).toBe(404);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
  });
});

describe('the 401 cases', () => {
  test('when a token has expired, then 401 at once', async ({ app, tokens: { newToken } }) => {
    const { token } = await newToken({ name: 'short', expiresInDays: 1 });
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(200);
    clock.advance(86400_000 + 1000);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(401);
  });

  test('when the token is unknown, malformed, or its user is gone, then 401 {"error":"Unauthorized"} with the reason in WWW-Authenticate, on the fast upload path too', async ({
    app,
    tokens: { newToken },
  }) => {
    for (const headers of [
      bearer(`fsk_${'A'.repeat(43)}`),
      { authorization: 'Bearer' },
      { authorization: 'Bearer a b' },
    ]) {
      for (const res of [
        await fetch(`${app.url}/api/v1/files`, { headers }),
        await fetch(`${app.url}/api/v1/files`, {
          method: 'POST',
          headers,
          body: fileForm('refused', 'refused.txt', 'text/plain'),
        }),
      ]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'Unauthorized' });
        expect(res.headers.get('www-authenticate')).toMatch(
          /^Bearer error="(invalid_token|invalid_request)", error_description="[^"]+"$/,
        );
      }
    }
    const { id: doomedId, cookie: doomedCookie } = await registeredUser(app, 'doomed');
    const { token } = await newToken({ name: 'orphan' }, doomedCookie);
    await app.rows('delete from users where id = ?', [doomedId]);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: bearer(token) })).status).toBe(401);
  });

  test('when a request carries a valid cookie and a bad token, then it is judged by the token: 401', async ({
    app,
    alice,
  }) => {
    const { cookie } = alice;
    const res = await fetch(`${app.url}/api/v1/files`, { headers: { cookie, ...bearer('fsk_not-a-real-token') } });
    expect(res.status).toBe(401);
  });

  test('when a token tries to manage tokens, then 403: a token cannot mint tokens', async ({
    app,
    tokens: { createToken, newToken },
  }) => {
    const { token, id } = await newToken();
    const minted = await createToken({ name: 'more' }, bearer(token));
    expect(minted.status).toBe(403);
    expect((await minted.json()).error).toContain('needs a login session');
    expect((await fetch(`${app.url}/api/v1/tokens`, { headers: bearer(token) })).status).toBe(403);
    expect((await fetch(`${app.url}/api/v1/tokens/${id}`, { method: 'DELETE', headers: bearer(token) })).status).toBe(
      403,
    );
    const [{ count }] = await app.rows('select count(*) as count from api_tokens where name = ?', ['more']);
    expect(Number(count)).toBe(0);
  });

  test('when a token is created with a bad name or lifetime, then 400 with a clear error', async ({
    tokens: { createToken },
  }) => {
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

/** What browsers and extensions send on a request another site (or an extension) made. */
const FOREIGN: Array<[string, Record<string, string>]> = [
  ['Origin: https://elsewhere.example', { origin: 'https://elsewhere.example' }],
  ['an extension’s Origin', { origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' }],
  ['Sec-Fetch-Site: cross-site without an Origin', { 'sec-fetch-site': 'cross-site' }],
];

describe('a request with an API token is not a cross-site request', () => {
  test.for(FOREIGN)(
    'when a token uploads, lists, changes and deletes with %s, then each works as without it',
    async ([_label, foreign], { app, alice, tokens: { newToken, fileIdsOf, upload } }) => {
      const { token } = await newToken({ name: 'extension' });
      const uploaded = await upload({ ...bearer(token), ...foreign });
      expect(uploaded.status).toBe(201);
      expect(uploaded.headers.getSetCookie()).toEqual([]);
      const { file } = await uploaded.json();
      expect(await fileIdsOf(alice.username)).toContain(file.id);

      const listed = await fetch(`${app.url}/api/v1/files`, { headers: { ...bearer(token), ...foreign } });
      expect(listed.status).toBe(200);
      expect((await listed.json()).files.map((f: { id: string }) => f.id)).toContain(file.id);

      const changed = await fetch(`${app.url}/api/v1/files/${file.id}`, {
        method: 'PATCH',
        headers: { ...bearer(token), ...foreign, 'content-type': 'application/json' },
        body: JSON.stringify({ maxDownloads: 3 }),
      });
      expect(changed.status).toBe(200);

      const deleted = await fetch(`${app.url}/api/v1/files/${file.id}`, {
        method: 'DELETE',
        headers: { ...bearer(token), ...foreign },
      });
      expect(deleted.status).toBe(200);
      expect(await fileIdsOf(alice.username)).not.toContain(file.id);
      expect(await app.storedFiles()).not.toContain(file.storedName);
    },
  );

  test('when a token makes a resumable upload with another site’s Origin, then it is created, written and becomes the token user’s file', async ({
    app,
    alice,
    tokens: { newToken },
  }) => {
    const { token } = await newToken({ name: 'resumable extension' });
    const headers = { ...bearer(token), ...TUS, origin: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop' };
    const created = await fetch(`${app.url}/api/v1/uploads`, {
      method: 'POST',
      headers: { ...headers, 'Upload-Length': '5', 'Upload-Metadata': uploadMetadata({ filename: 'ext.txt' }) },
    });
    expect(created.status).toBe(201);
    const written = await fetch(new URL(created.headers.get('location')!, created.url), {
      method: 'PATCH',
      headers: { ...headers, 'Upload-Offset': '0', 'content-type': OFFSET_OCTET_STREAM },
      body: 'hello',
    });
    expect(written.status).toBe(200); // the last byte: the answer carries the file
    const [row] = await app.rows(
      "select f.id from files f join users u on u.id = f.user_id where u.username = ? and f.original_name = 'ext.txt'",
      [alice.username],
    );
    expect(row).toBeDefined();
  });

  test.for(FOREIGN)(
    'when the same requests carry only a session cookie with %s, then each is 403 and changes nothing',
    async ([_label, foreign], { app, alice, tokens: { upload } }) => {
      const { cookie } = alice;
      const own = await upload({ cookie }, 'mine.txt');
      const { file } = await own.json();
      const before = {
        files: await app.rows('select id, max_downloads from files order by id'),
        stored: await app.storedFiles(),
      };

      const refused = [
        await upload({ cookie, ...foreign }),
        await fetch(`${app.url}/api/v1/files/${file.id}`, {
          method: 'PATCH',
          headers: { cookie, ...foreign, 'content-type': 'application/json' },
          body: JSON.stringify({ maxDownloads: 3 }),
        }),
        await fetch(`${app.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: { cookie, ...foreign } }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ error: 'Cross-site request refused' });
      }
      expect({
        files: await app.rows('select id, max_downloads from files order by id'),
        stored: await app.storedFiles(),
      }).toEqual(before);
    },
  );

  test('when a cross-site request carries one user’s token and another user’s cookie, then it acts as the token’s user only and leaves the cookie alone', async ({
    app,
    alice,
    bob,
    tokens: { newToken, fileIdsOf, upload },
  }) => {
    const otherCookie = bob.cookie;
    const { token } = await newToken({ name: 'mixed' });
    const someoneBefore = await fileIdsOf(bob.username);
    const uploaded = await upload({ ...bearer(token), cookie: otherCookie, origin: 'https://elsewhere.example' });
    expect(uploaded.status).toBe(201);
    expect(uploaded.headers.getSetCookie()).toEqual([]);
    const { file } = await uploaded.json();
    expect(await fileIdsOf(alice.username)).toContain(file.id);
    expect(await fileIdsOf(bob.username)).toEqual(someoneBefore);

    // The cookie's owner cannot be reached through it: their file is another user's to the token
    // (the 403 of someone else's file, not the cross-site refusal).
    const theirs = await upload({ cookie: otherCookie }, 'theirs.txt');
    const { file: theirFile } = await theirs.json();
    const notMine = await fetch(`${app.url}/api/v1/files/${theirFile.id}`, {
      method: 'DELETE',
      headers: { ...bearer(token), cookie: otherCookie, 'sec-fetch-site': 'cross-site' },
    });
    expect(notMine.status).toBe(403);
    expect(await notMine.json()).toEqual({ error: 'Forbidden' });
    expect(await fileIdsOf(bob.username)).toContain(theirFile.id);
  });

  test('when a cross-site logout carries a token and a session cookie, then it is 403 and the cookie’s session still works', async ({
    app,
    bob,
    tokens: { newToken },
  }) => {
    const { token } = await newToken({ name: 'no logout' });
    const victim = await app.login(bob.username);
    for (const authorization of [`Bearer ${token}`, 'Bearer fsk_not-a-real-token']) {
      const out = await fetch(`${app.url}/api/v1/auth/logout`, {
        method: 'POST',
        headers: { authorization, cookie: victim, origin: 'https://elsewhere.example' },
      });
      expect(out.status).toBe(403);
      expect(out.headers.getSetCookie()).toEqual([]);
      const page = await fetch(`${app.url}/logout`, {
        method: 'POST',
        headers: {
          authorization,
          cookie: victim,
          'sec-fetch-site': 'cross-site',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: '',
        redirect: 'manual',
      });
      expect(page.status).toBe(403);
    }
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie: victim } })).status).toBe(200);
  });

  test('when a cross-site request carries a bad token and a valid session cookie, then it is 401 and nothing is stored or deleted', async ({
    app,
    alice,
    tokens: { upload },
  }) => {
    const { cookie } = alice;
    const own = await upload({ cookie }, 'kept.txt');
    const { file } = await own.json();
    const before = { files: await app.rows('select id from files order by id'), stored: await app.storedFiles() };
    for (const authorization of ['Bearer fsk_not-a-real-token', 'Bearer']) {
      const foreign = { authorization, cookie, origin: 'https://elsewhere.example' };
      expect((await upload(foreign)).status).toBe(401);
      expect((await fetch(`${app.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: foreign })).status).toBe(
        401,
      );
      // Outside the API a token opens nothing, so nothing there is judged by one: still refused.
      const trpc = await fetch(`${app.url}/trpc/files.delete`, {
        method: 'POST',
        headers: { ...foreign, 'content-type': 'application/json' },
        body: JSON.stringify({ id: file.id }),
      });
      expect(trpc.status).toBe(403);
    }
    expect({ files: await app.rows('select id from files order by id'), stored: await app.storedFiles() }).toEqual(
      before,
    );
  });
});
