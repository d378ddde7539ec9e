// How My files shows a user's files (ADR 0046), through the API: GET /api/v1/me says it,
// PATCH /api/v1/me changes it (a session or a token), and anything but "table" or "gallery" is a
// 400 that names the field. Runs on both backends.
import { describe, expect, test } from '../helpers/fixtures';

const patchMe = (body: unknown) => ({
  method: 'PATCH',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('the view of My files in the API', () => {
  test('when a user has never chosen, then GET /me says "table"', async ({ alice }) => {
    const res = await alice.fetch('/api/v1/me');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { fileListView: string }).fileListView).toBe('table');
  });

  test('when a user sets "gallery" with PATCH /me, then GET /me says so, after a new login too; "table" turns it back', async ({
    app,
    bob,
  }) => {
    const set = await bob.fetch('/api/v1/me', patchMe({ fileListView: 'gallery' }));
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ fileListView: 'gallery' });

    const again = await app.login(bob.username);
    const me = await bob.fetch('/api/v1/me', { headers: { cookie: again } });
    expect(((await me.json()) as { fileListView: string }).fileListView).toBe('gallery');

    expect((await bob.fetch('/api/v1/me', patchMe({ fileListView: 'table' }))).status).toBe(200);
    const back = await bob.fetch('/api/v1/me');
    expect(((await back.json()) as { fileListView: string }).fileListView).toBe('table');
  });

  test('when the value is not a view, a field is unknown or the body is no JSON, then 400 says why and nothing changes', async ({
    alice,
  }) => {
    const bad = await alice.fetch('/api/v1/me', patchMe({ fileListView: 'mosaic' }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('fileListView must be one of table, gallery');

    expect((await alice.fetch('/api/v1/me', patchMe({ fileListView: 'gallery', colour: 'red' }))).status).toBe(400);
    expect((await alice.fetch('/api/v1/me', patchMe({}))).status).toBe(400);
    expect((await alice.fetch('/api/v1/me', patchMe(['gallery']))).status).toBe(400);
    expect((await alice.fetch('/api/v1/me', { method: 'PATCH', body: 'fileListView=gallery' })).status).toBe(400);

    const me = await alice.fetch('/api/v1/me');
    expect(((await me.json()) as { fileListView: string }).fileListView).toBe('table');
  });

  test('when an API token sets the view, then it is stored like a session’s; without a login it is 401', async ({
    app,
    alice,
  }) => {
    const token = await alice.createToken();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const set = await fetch(`${app.url}/api/v1/me`, {
      method: 'PATCH',
      headers: auth,
      body: JSON.stringify({ fileListView: 'gallery' }),
    });
    expect(set.status).toBe(200);
    const me = await fetch(`${app.url}/api/v1/me`, { headers: auth });
    expect(((await me.json()) as { fileListView: string }).fileListView).toBe('gallery');
    await alice.fetch('/api/v1/me', patchMe({ fileListView: 'table' }));

    const anonymous = await fetch(`${app.url}/api/v1/me`, patchMe({ fileListView: 'gallery' }));
    expect(anonymous.status).toBe(401);
  });
});
