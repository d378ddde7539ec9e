// REGISTRATION=open (ADR 0086): anyone makes an account on /signup and is signed in on their
// files; the login page points there; a few sign-ups per address in 15 minutes, then 429 with
// Retry-After, on the login throttle's counters.
import { describe, expect, test } from '../helpers/fixtures';
import { getPage, postForm, sessionSetCookie, visibleText } from '../helpers/pages-fixtures';

test.override('appEnv', { REGISTRATION: 'open', TRUST_PROXY: 'true' });

const PASSWORD = 'a perfectly fine password';

function signUp(app: Parameters<typeof getPage>[0], username: string, from: string) {
  return postForm(
    app,
    '/signup',
    { username, password: PASSWORD, passwordAgain: PASSWORD },
    { headers: { 'x-forwarded-for': from } },
  );
}

describe('open sign-up', () => {
  test('when a visitor signs up, then they have an account with the default quota, are signed in on their files, and can log in again', async ({
    app,
  }) => {
    const login = visibleText(await (await getPage(app, '/login')).text());
    expect(login).toContain('No account yet? Sign up');
    const page = await getPage(app, '/signup');
    expect(page.status).toBe(200);
    expect(visibleText(await page.text())).toContain('Sign up');

    const res = await signUp(app, 'newcomer', '198.51.100.7');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/files');
    const cookie = sessionSetCookie(res)!.split(';')[0];
    expect((await getPage(app, '/files', cookie)).status).toBe(200);
    const [row] = await app.rows("select has_own_quota, is_admin from users where username = 'newcomer'");
    expect([Boolean(row.has_own_quota), Boolean(row.is_admin)]).toEqual([false, false]);
    const again = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'newcomer', password: PASSWORD }),
    });
    expect(again.status).toBe(200);
    // Signed in, /signup has nothing to offer.
    expect((await getPage(app, '/signup', cookie)).headers.get('location')).toBe('/files');
  });

  test('when one address signs up again and again, then the sixth is refused with 429 and Retry-After, and another address still can', async ({
    app,
  }) => {
    const from = '203.0.113.9';
    for (let i = 1; i <= 5; i++) expect((await signUp(app, `flood${i}`, from)).status).toBe(302);
    const refused = await signUp(app, 'flood6', from);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(visibleText(await refused.text())).toContain('Too many accounts were made from this address.');
    expect(await app.rows("select id from users where username = 'flood6'")).toEqual([]);
    expect((await signUp(app, 'elsewhere', '192.0.2.44')).status).toBe(302);
  });

  test('when the name is taken or the passwords differ, then the form says so with the name kept, and nothing is made', async ({
    app,
    bob,
  }) => {
    const taken = await signUp(app, bob.username, '198.51.100.20');
    expect(taken.status).toBe(409);
    expect(visibleText(await taken.text())).toContain('Username is already taken.');
    const differ = await postForm(app, '/signup', {
      username: 'mismatch',
      password: PASSWORD,
      passwordAgain: 'another one!',
    });
    expect(differ.status).toBe(400);
    const html = await differ.text();
    expect(visibleText(html)).toContain('The two passwords differ');
    expect(html).toContain('value="mismatch"');
    expect(await app.rows("select id from users where username = 'mismatch'")).toEqual([]);
  });
});
