// Invitations (ADR 0086) with REGISTRATION=invite: an admin makes a link on the admin API; whoever
// opens it makes an account with the invitation's quota and right, as many times as it allows,
// until it expires or is revoked, and then hears which with 410. Anyone but an admin meets 404 on
// the admin routes. Runs on both backends.
import { UserSchema } from '../../server/db/entities/user.entity';
import { TestClock, type TestApp } from '../helpers/app';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, postForm, sessionSetCookie, visibleText } from '../helpers/pages-fixtures';

const clock = new TestClock();
test.override('appEnv', { REGISTRATION: 'invite' });
test.override('appOptions', { clock });

const PASSWORD = 'a perfectly fine password';

function json(method: string, body?: unknown): RequestInit {
  return body === undefined
    ? { method }
    : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

async function makeAdmin(app: TestApp, username: string): Promise<void> {
  await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: username }, { isAdmin: true });
}

/** Makes an invitation as `cookie`; its path, /invite/<code>, and what the API answered. */
async function invite(app: TestApp, cookie: string, body: Record<string, unknown> = {}) {
  const res = await fetch(`${app.url}/api/v1/admin/invitations`, {
    ...json('POST', body),
    headers: { cookie, 'content-type': 'application/json' },
  });
  expect(res.status).toBe(201);
  const made = (await res.json()) as { url: string; code: string; invitation: { id: string; state: string } };
  return { ...made, path: new URL(made.url).pathname };
}

/** The form of an invitation's page, sent as a browser without JavaScript sends it. */
function accept(app: TestApp, path: string, username: string, password = PASSWORD, again = password) {
  return postForm(app, path, { username, password, passwordAgain: again });
}

async function usesOf(app: TestApp, id: string): Promise<number> {
  const [row] = await app.rows('select uses from invitations where id = ?', [id]);
  return Number(row.uses);
}

describe('invitations', () => {
  test.beforeAll(async ({ app, alice }) => {
    await makeAdmin(app, alice.username);
  });

  test('when someone who is not an admin calls the invitation routes, then each is 404 and no invitation is made', async ({
    app,
    bob,
  }) => {
    const calls: Array<[string, RequestInit]> = [
      ['/api/v1/admin/invitations', json('GET')],
      ['/api/v1/admin/invitations', json('POST', {})],
      ['/api/v1/admin/invitations/some-id', json('DELETE')],
    ];
    for (const [path, init] of calls) {
      for (const credentials of [{}, { cookie: bob.cookie }]) {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(credentials)) headers.set(name, value);
        const res = await fetch(`${app.url}${path}`, { ...init, headers });
        expect(res.status, `${init.method} ${path}`).toBe(404);
      }
    }
    expect(await getPage(app, '/admin/invitations', bob.cookie).then((res) => res.status)).toBe(404);
    expect(await app.rows('select id from invitations')).toEqual([]);
  });

  test('when an admin invites two people with a quota, then each makes an account that has it, is signed in on their files, and a third is told the link is used up (410)', async ({
    app,
    alice,
  }) => {
    const made = await invite(app, alice.cookie, { maxUses: 2, quota: '5GB', expiresInDays: 3 });
    expect(made.path).toMatch(/^\/invite\/[A-Za-z0-9_-]{24}$/);
    expect(made.invitation).toMatchObject({
      state: 'open',
      maxUses: 2,
      uses: 0,
      quotaSource: 'own',
      quotaBytes: 5e9,
      admin: false,
      createdBy: 'alice',
    });
    // Only a hash of the code is kept.
    expect(JSON.stringify(await app.rows('select * from invitations'))).not.toContain(made.code);

    const page = await getPage(app, made.path);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toContain('no-store');
    expect(visibleText(await page.text())).toContain('Make your account');

    for (const name of ['carla', 'dmitri']) {
      const res = await accept(app, made.path, name);
      expect(res.status, name).toBe(302);
      expect(res.headers.get('location')).toBe('/files');
      const cookie = sessionSetCookie(res);
      expect(cookie).toBeTruthy();
      const files = await getPage(app, '/files', cookie!.split(';')[0]);
      expect(files.status).toBe(200);
      expect(visibleText(await files.text())).toContain('of 5 GB used');
    }
    const rows = await app.rows(
      "select username, has_own_quota, quota_bytes, is_admin from users where username in ('carla', 'dmitri') order by username",
    );
    expect(
      rows.map((row) => [row.username, Boolean(row.has_own_quota), Number(row.quota_bytes), Boolean(row.is_admin)]),
    ).toEqual([
      ['carla', true, 5e9, false],
      ['dmitri', true, 5e9, false],
    ]);

    const third = await accept(app, made.path, 'erin');
    expect(third.status).toBe(410);
    expect(visibleText(await third.text())).toContain('This invitation has been used up');
    const opened = await getPage(app, made.path);
    expect(opened.status).toBe(410);
    expect(visibleText(await opened.text())).toContain('used up');
    expect(await app.rows("select id from users where username = 'erin'")).toEqual([]);

    const listed = await fetch(`${app.url}/api/v1/admin/invitations`, { headers: { cookie: alice.cookie } });
    const { invitations } = (await listed.json()) as {
      invitations: Array<{ id: string; uses: number; state: string }>;
    };
    expect(invitations.find((one) => one.id === made.invitation.id)).toMatchObject({ uses: 2, state: 'used up' });
  });

  test('when an invitation expires or is revoked, then its page and its form say which with 410 and make no account', async ({
    app,
    alice,
  }) => {
    const expiring = await invite(app, alice.cookie, { expiresInDays: 1 });
    const revoked = await invite(app, alice.cookie);
    const res = await fetch(`${app.url}/api/v1/admin/invitations/${revoked.invitation.id}`, {
      method: 'DELETE',
      headers: { cookie: alice.cookie },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { invitation: { state: string } }).invitation.state).toBe('revoked');

    clock.advance(86_400_000 + 1000);
    for (const [path, words] of [
      [expiring.path, 'This invitation has expired'],
      [revoked.path, 'This invitation was revoked'],
    ]) {
      const page = await getPage(app, path);
      expect(page.status).toBe(410);
      expect(visibleText(await page.text())).toContain(words);
      const sent = await accept(app, path, 'latecomer');
      expect(sent.status).toBe(410);
    }
    expect(await app.rows("select id from users where username = 'latecomer'")).toEqual([]);
    expect((await getPage(app, '/invite/nothing-of-the-kind')).status).toBe(404);
  });

  test('when the form is wrong (a name taken, passwords that differ, one too short), then the page says so, no account is made and no use is taken', async ({
    app,
    alice,
    bob,
  }) => {
    const made = await invite(app, alice.cookie);
    const cases: Array<[string, string, string, number, string]> = [
      [bob.username, PASSWORD, PASSWORD, 409, 'Username is already taken.'],
      ['newcomer', PASSWORD, `${PASSWORD}!`, 400, 'The two passwords differ: type the same one twice.'],
      ['newcomer', 'short', 'short', 400, 'Password must be at least 8 characters long.'],
      ['no spaces allowed', PASSWORD, PASSWORD, 400, ''],
    ];
    for (const [username, password, again, status, words] of cases) {
      const res = await accept(app, made.path, username, password, again);
      expect(res.status, username).toBe(status);
      const text = visibleText(await res.text());
      if (words) expect(text).toContain(words);
    }
    expect(await usesOf(app, made.invitation.id)).toBe(0);
    expect(await app.rows("select id from users where username = 'newcomer'")).toEqual([]);
  });

  test('when two people send the form of a one-use invitation at once, then one gets the account and the other hears it is used up', async ({
    app,
    alice,
  }) => {
    const made = await invite(app, alice.cookie, { maxUses: 1 });
    const answers = await Promise.all([accept(app, made.path, 'first-one'), accept(app, made.path, 'second-one')]);
    expect(answers.map((res) => res.status).sort()).toEqual([302, 410]);
    expect(await usesOf(app, made.invitation.id)).toBe(1);
    const made2 = await app.rows("select username from users where username in ('first-one', 'second-one')");
    expect(made2).toHaveLength(1);
  });

  test('when an admin sends a bad invitation, then it is 400 with what is wrong, and nothing is made', async ({
    app,
    alice,
  }) => {
    const before = await app.rows('select id from invitations');
    for (const [body, error] of [
      [{ maxUses: 0 }, 'maxUses must be a whole number from 1 to 1000'],
      [{ expiresInDays: 366 }, 'expiresInDays must be a whole number from 1 to 365'],
      [{ quota: 'lots' }, 'Quota must be a size such as 500MB, 500MiB, 2G or 2GiB, "none" or "default", got "lots"'],
      [{ admin: 'yes' }, 'admin must be true or false'],
      [{ colour: 'red' }, "Unrecognized key(s) in object: 'colour'"],
    ] as const) {
      const res = await fetch(`${app.url}/api/v1/admin/invitations`, {
        ...json('POST', body),
        headers: { cookie: alice.cookie, 'content-type': 'application/json' },
      });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual({ error });
    }
    expect(await app.rows('select id from invitations')).toEqual(before);
  });

  test('when an invitation makes admins, then the account it makes is one and sees the console', async ({
    app,
    alice,
  }) => {
    const made = await invite(app, alice.cookie, { admin: true });
    const res = await accept(app, made.path, 'deputy');
    expect(res.status).toBe(302);
    const cookie = sessionSetCookie(res)!.split(';')[0];
    expect((await getPage(app, '/admin', cookie)).status).toBe(200);
  });
});
