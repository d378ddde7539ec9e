// REGISTRATION=off, the default (ADR 0086): nobody makes an account on the web. /signup and every
// /invite/<code> are 404; an admin asking for an invitation is told why not (409), on the API
// and on the console's page.
import { UserSchema } from '../../server/db/entities/user.entity';
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, postForm, visibleText } from '../helpers/pages-fixtures';

describe('registration turned off', () => {
  test('when anyone opens /signup or an invitation address, or sends their forms, then it is 404 and no account is made', async ({
    app,
  }) => {
    for (const path of ['/signup', '/invite/abcdefghijklmnopqrstuvwx']) {
      expect((await getPage(app, path)).status, path).toBe(404);
      const sent = await postForm(app, path, {
        username: 'walk-in',
        password: 'a fine password',
        passwordAgain: 'a fine password',
      });
      expect(sent.status, path).toBe(404);
    }
    expect(await app.rows("select id from users where username = 'walk-in'")).toEqual([]);
    const login = visibleText(await (await getPage(app, '/login')).text());
    expect(login).toContain('Accounts are created by the administrator of this service.');
    expect(login).not.toContain('Sign up');
  });

  test('when an admin asks for an invitation, then the API answers 409 with the reason and the console says how to turn them on', async ({
    app,
    alice,
  }) => {
    await app.orm.em.fork().nativeUpdate(UserSchema, { usernameKey: alice.username }, { isAdmin: true });
    const res = await fetch(`${app.url}/api/v1/admin/invitations`, {
      method: 'POST',
      headers: { cookie: alice.cookie, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'Invitations are turned off here (REGISTRATION=off)' });
    const page = await getPage(app, '/admin/invitations', alice.cookie);
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('Invitations are turned off: set REGISTRATION=invite (or open)');
    const form = await postForm(app, '/admin/invitations', { intent: 'invite' }, { cookie: alice.cookie });
    expect(form.status).toBe(409);
    expect(await app.rows('select id from invitations')).toEqual([]);
  });
});
