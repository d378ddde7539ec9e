// The admin console's API, /api/v1/admin/users (ADR 0083): an admin (session or API token)
// lists every account with what it stores, searched, sorted and a page at a time, and creates,
// changes, signs out and deletes accounts; to anyone else every route is a 404 and changes
// nothing. Runs on both backends.
import { UserSchema } from '../../server/db/entities/user.entity';
import type { TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';

const NOT_FOUND = { error: 'Not found' };

async function makeAdmin(app: TestApp, username: string): Promise<void> {
  await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: username }, { isAdmin: true });
}

function json(method: string, body?: unknown): RequestInit {
  return body === undefined
    ? { method }
    : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

describe('the admin API', () => {
  test.beforeAll(async ({ app, alice }) => {
    await makeAdmin(app, alice.username);
  });

  test('when someone who is not an admin calls any admin route, then it is 404 as an unknown address, and nothing changes', async ({
    app,
    bob,
  }) => {
    const token = await bob.createToken('not an admin');
    const calls: Array<[string, RequestInit]> = [
      ['/api/v1/admin/users', json('GET')],
      ['/api/v1/admin/users?sort=nonsense', json('GET')],
      ['/api/v1/admin/users', json('POST', { username: 'mallory', password: 'a perfectly fine password' })],
      ['/api/v1/admin/users/bob', json('PATCH', { admin: true })],
      ['/api/v1/admin/users/alice/sign-out', json('POST')],
      ['/api/v1/admin/users/alice/reset-2fa', json('POST')],
      ['/api/v1/admin/users/alice', json('DELETE')],
      ['/api/v1/admin/nothing-here', json('GET')],
    ];
    for (const [path, init] of calls) {
      const who: Array<Record<string, string>> = [{}, { cookie: bob.cookie }, { authorization: `Bearer ${token}` }];
      for (const credentials of who) {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(credentials)) headers.set(name, value);
        const res = await fetch(`${app.url}${path}`, { ...init, headers });
        expect(res.status, `${init.method} ${path}`).toBe(404);
        expect(await res.json()).toEqual(NOT_FOUND);
      }
    }
    const rows = await app.rows('select username, is_admin from users order by username_key');
    expect(rows.map((row) => [row.username, Boolean(row.is_admin)])).toEqual([
      ['alice', true],
      ['bob', false],
    ]);
  });

  test('when an admin lists the accounts, then each shows its files, bytes, quota, codes, identity, right and state', async ({
    alice,
    bob,
  }) => {
    await bob.upload('twelve bytes', 'a.txt');
    await bob.upload('three', 'b.txt');
    const res = await alice.fetch('/api/v1/admin/users');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      total: 2,
      page: 1,
      pages: 1,
      query: { q: '', sort: 'username', order: 'asc', page: 1 },
    });
    expect(body.accounts.map((account: { username: string }) => account.username)).toEqual(['alice', 'bob']);
    expect(body.accounts[0]).toMatchObject({ admin: true, disabled: false, files: 0, bytes: 0 });
    expect(body.accounts[1]).toEqual({
      id: bob.id,
      username: 'bob',
      createdAt: expect.any(String),
      lastSignInAt: expect.any(String),
      files: 2,
      bytes: 17,
      quotaBytes: null,
      quotaSource: 'default',
      twoFactor: false,
      oidcSubject: null,
      admin: false,
      disabled: false,
    });
  });

  test('when there are many accounts, then the list searches by part of the name, sorts by any column and pages by 50', async ({
    app,
    alice,
  }) => {
    for (let i = 0; i < 60; i++) await app.createUser(`crowd${String(i).padStart(2, '0')}`);
    const page = async (query: string) => {
      const res = await alice.fetch(`/api/v1/admin/users?${query}`);
      expect(res.status, query).toBe(200);
      return res.json();
    };
    const crowd = await page('q=CROWD');
    expect(crowd).toMatchObject({ total: 60, page: 1, pages: 2 });
    expect(crowd.accounts).toHaveLength(50);
    const second = await page('q=crowd&page=2');
    expect(second.accounts.map((account: { username: string }) => account.username)).toEqual(
      Array.from({ length: 10 }, (_, i) => `crowd${50 + i}`),
    );
    expect((await page('q=crowd&page=9')).page).toBe(2);
    expect((await page('q=crowd&order=desc')).accounts[0].username).toBe('crowd59');
    expect((await page('sort=bytes&order=desc')).accounts[0].username).toBe('bob');
    expect((await page('q=%25')).total).toBe(0);
    expect((await page('q=_')).total).toBe(0);

    for (const [query, error] of [
      ['sort=size', 'sort is one of username, created, lastSignIn, files, bytes'],
      ['order=up', 'order is asc or desc'],
      ['page=0', 'page is a whole number from 1'],
      ['page=two', 'page is a whole number from 1'],
    ]) {
      const res = await alice.fetch(`/api/v1/admin/users?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
  });

  test('when an admin creates an account, then its owner logs in with that password; a taken name is 409 and a short password 400', async ({
    app,
    alice,
  }) => {
    const made = await alice.fetch(
      '/api/v1/admin/users',
      json('POST', { username: 'Carol', password: 'a perfectly fine password', admin: true }),
    );
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ user: { username: 'Carol', admin: true, files: 0 } });
    const login = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', password: 'a perfectly fine password' }),
    });
    expect(login.status).toBe(200);

    const taken = await alice.fetch(
      '/api/v1/admin/users',
      json('POST', { username: 'carol', password: 'another fine one' }),
    );
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ error: 'Username is already taken' });
    const short = await alice.fetch('/api/v1/admin/users', json('POST', { username: 'dave', password: 'short' }));
    expect(short.status).toBe(400);
    expect((await app.rows('select id from users where username_key = ?', ['dave'])).length).toBe(0);
  });

  test('when an admin changes an account, then quota, state and right read back; the last admin and their own account are refused', async ({
    app,
    alice,
    bob,
  }) => {
    const changed = await alice.fetch('/api/v1/admin/users/BOB', json('PATCH', { quota: '2GB', disabled: true }));
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      user: { username: 'bob', quotaBytes: 2_000_000_000, quotaSource: 'own', disabled: true },
    });
    expect((await bob.fetch('/api/v1/files')).status).toBe(401);
    expect((await alice.fetch('/api/v1/admin/users/bob', json('PATCH', { disabled: false }))).status).toBe(200);

    const self = await alice.fetch('/api/v1/admin/users/alice', json('PATCH', { disabled: true }));
    expect(self.status).toBe(409);
    expect(await self.json()).toEqual({ error: 'You cannot disable your own account here: another admin can' });
    await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: 'carol' }, { isAdmin: false });
    const last = await alice.fetch('/api/v1/admin/users/alice', json('PATCH', { admin: false }));
    expect(last.status).toBe(409);
    expect((await last.json()).error).toMatch(/^alice is the last admin/);

    for (const [body, error] of [
      [{}, 'Say what to change: admin, quota or disabled'],
      [{ quota: 'lots' }, 'Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "lots"'],
      [{ admin: 'yes' }, 'admin is true or false'],
      [{ colour: 'red' }, "Unrecognized key(s) in object: 'colour'"],
    ] as const) {
      const res = await alice.fetch('/api/v1/admin/users/bob', json('PATCH', body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
    const nobody = await alice.fetch('/api/v1/admin/users/nobody', json('PATCH', { disabled: true }));
    expect(nobody.status).toBe(404);
    expect(await nobody.json()).toEqual({ error: 'No user named "nobody"' });
  });

  test('when an admin signs an account out everywhere and resets its codes, then its sessions stop at once and its tokens go on', async ({
    app,
    alice,
  }) => {
    await app.createUser('erin');
    const cookie = await app.login('erin');
    const token = await (async () => {
      const res = await fetch(`${app.url}/api/v1/tokens`, {
        ...json('POST', { name: 'script' }),
        headers: { 'content-type': 'application/json', cookie },
      });
      return ((await res.json()) as { token: string }).token;
    })();
    const ended = await alice.fetch('/api/v1/admin/users/erin/sign-out', json('POST'));
    expect(ended.status).toBe(200);
    expect(await ended.json()).toEqual({ sessionsEnded: 1 });
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const reset = await alice.fetch('/api/v1/admin/users/erin/reset-2fa', json('POST'));
    expect(reset.status).toBe(200);
    expect(await reset.json()).toEqual({ wasOn: false });
  });

  test('when an admin deletes an account with an API token, then it goes with its files; their own account is refused', async ({
    app,
    alice,
  }) => {
    await app.createUser('frank');
    const cookie = await app.login('frank');
    const form = new FormData();
    form.set('file', new Blob(['frank’s notes']), 'notes.txt');
    expect((await fetch(`${app.url}/api/v1/files`, { method: 'POST', headers: { cookie }, body: form })).status).toBe(
      201,
    );
    const token = await alice.createToken('admin script');
    const bearer = { authorization: `Bearer ${token}` };
    const gone = await fetch(`${app.url}/api/v1/admin/users/frank`, { method: 'DELETE', headers: bearer });
    expect(gone.status).toBe(200);
    expect(await gone.json()).toEqual({ ok: true, removed: { files: 1, bytes: 15 } });
    expect(await app.rows('select id from users where username_key = ?', ['frank'])).toEqual([]);

    const self = await fetch(`${app.url}/api/v1/admin/users/alice`, { method: 'DELETE', headers: bearer });
    expect(self.status).toBe(409);
    expect(await self.json()).toEqual({ error: 'You cannot delete your own account here: another admin can' });
  });
  test('when the console’s tRPC procedures are called, then an admin is answered and anyone else gets 404 before the input is read, and nothing changes', async ({
    app,
    alice,
    bob,
  }) => {
    const call = (cookie: string | undefined, procedure: string, input?: unknown) =>
      fetch(`${app.url}/trpc/admin.${procedure}`, {
        ...(input === undefined ? {} : { method: 'POST', body: JSON.stringify(input) }),
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      });
    for (const cookie of [undefined, bob.cookie]) {
      for (const [procedure, input] of [
        ['users', undefined],
        ['setDisabled', { username: 'alice', disabled: true }],
        ['setAdmin', { username: 'bob', admin: true }],
        ['setQuota', { username: 'alice', quota: 'not even a size' }],
        ['signOut', { username: 'alice' }],
        ['create', { username: 'mallory', password: 'a perfectly fine password' }],
      ] as const) {
        const res = await call(cookie, procedure, input);
        expect(res.status, procedure).toBe(404);
        expect((await res.json()).error.message).toBe('Not found');
      }
    }
    expect((await app.rows("select id from users where username_key = 'mallory'")).length).toBe(0);
    const listed = await call(alice.cookie, 'users');
    expect(listed.status).toBe(200);
    expect((await listed.json()).result.data.accounts.map((a: { username: string }) => a.username)).toContain('bob');
    const refused = await call(alice.cookie, 'setDisabled', { username: 'alice', disabled: true });
    expect(refused.status).toBe(409);
  });
});
