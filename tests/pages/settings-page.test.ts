// The settings page without JavaScript (ADR 0015): API tokens created with a form and shown
// once, listed by name and first characters, revoked with a button; the ShareX uploader it
// offers is valid JSON that uploads for real with its own headers; the password changed and
// the sessions listed and logged out, with plain forms.
import { cookieFrom, DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { claimsOf, tokenOf } from '../helpers/tokens';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';

/** Creates a token with the settings page's form as the user whose session cookie is `cookie`. */
async function createWithForm(app: TestApp, cookie: string, name: string): Promise<string> {
  const res = await postForm(app, '/settings', { intent: 'create-token', name, expiresInDays: '30' }, { cookie });
  expect(res.status).toBe(201);
  const html = await res.text();
  const token = /value="(fsk_[A-Za-z0-9_-]{43})"/.exec(html)?.[1];
  expect(token).toBeDefined();
  expect(visibleText(html)).toContain('Copy it now: it is not shown again.');
  return token!;
}

/** New users of `app` logged in from a given browser, one for each test, so that sessions never leak between tests. */
function keeperLogins(app: TestApp) {
  let users = 0;
  async function loggedIn(userAgent: string): Promise<{ name: string; cookie: string }> {
    const name = `keeper${++users}`;
    await app.createUser(name);
    return { name, cookie: await loginFrom(name, userAgent) };
  }
  async function loginFrom(name: string, userAgent: string, password = DEFAULT_PASSWORD): Promise<string> {
    const res = await fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: JSON.stringify({ username: name, password }),
    });
    expect(res.status).toBe(200);
    return cookieFrom(res);
  }
  const filesStatus = async (cookie: string) =>
    (await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status;
  return { loggedIn, loginFrom, filesStatus };
}

const test = base.extend('keepers', { scope: 'file' }, ({ app }) => keeperLogins(app));

describe('the settings page', () => {
  test('when a visitor without a session opens it, then they are sent to log in', async ({ app }) => {
    const res = await getPage(app, '/settings');
    expect(res.headers.get('location')).toBe('/login?redirectTo=%2Fsettings');
  });

  test('when a token is created with the form, then it is shown once, works, and the list later shows only its name and start', async ({
    app,
    alice: { cookie },
  }) => {
    const token = await createWithForm(app, cookie, 'curl on the NAS');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );
    const later = await (await getPage(app, '/settings', cookie)).text();
    expect(later).not.toContain(token);
    expect(visibleText(later)).toContain('curl on the NAS');
    expect(visibleText(later)).toContain(`${token.slice(0, 10)}…`);
  });

  test('when a token is revoked with its button, then the page says so and the token stops working', async ({
    app,
    alice: { cookie },
  }) => {
    const token = await createWithForm(app, cookie, 'short-lived');
    const [{ id }] = await app.rows('select id from api_tokens where name = ?', ['short-lived']);
    const res = await postForm(app, '/settings', { intent: 'revoke-token', id: String(id) }, { cookie });
    expect(res.status).toBe(200);
    expect(visibleText(await res.text())).toContain('The token was revoked');
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
  });

  test('when the form has no name, then the page says so with status 400 and no token is made', async ({
    app,
    alice: { cookie },
  }) => {
    const res = await postForm(app, '/settings', { intent: 'create-token', name: ' ', expiresInDays: '' }, { cookie });
    expect(res.status).toBe(400);
    expect(alertsOf(await res.text())).toEqual(['Name is required']);
  });

  test('when the token form is refused for a field, then the message names it by its label ("Name", "Expires after")', async ({
    app,
    alice: { cookie },
  }) => {
    const long = await postForm(
      app,
      '/settings',
      { intent: 'create-token', name: 'n'.repeat(101), expiresInDays: '' },
      { cookie },
    );
    expect(alertsOf(await long.text())).toEqual(['Name must be at most 100 characters']);
    const days = await postForm(
      app,
      '/settings',
      { intent: 'create-token', name: 'ok', expiresInDays: '9999' },
      { cookie },
    );
    expect(days.status).toBe(400);
    expect(alertsOf(await days.text())).toEqual(['Expires after must be a whole number from 1 to 3650, or no expiry']);
  });

  test('when the ShareX config is downloaded, then it is valid JSON whose request, headers and URL path make a real upload', async ({
    app,
    alice: { cookie },
  }) => {
    const token = await createWithForm(app, cookie, 'ShareX');
    const res = await postForm(app, '/settings/sharex', { token }, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="filesharing.sxcu"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const config = JSON.parse(await res.text());
    expect(config).toMatchObject({
      RequestMethod: 'POST',
      Body: 'MultipartFormData',
      RequestURL: `${app.url}/api/v1/files`,
      URL: '{json:url}',
    });
    // Making the file is not a use of the token.
    const [unused] = await app.rows('select last_used_at from api_tokens where name = ?', ['ShareX']);
    expect(unused.last_used_at).toBeNull();

    // What ShareX does with it: a multipart POST with its headers, the file under FileFormName.
    const form = new FormData();
    form.append(config.FileFormName, new Blob(['a screenshot'], { type: 'image/png' }), 'Screenshot.png');
    const upload = await fetch(config.RequestURL, {
      method: config.RequestMethod,
      headers: config.Headers,
      body: form,
    });
    expect(upload.status).toBe(201);
    const answer = await upload.json();
    const jsonPath = /^\{json:(\w+)\}$/.exec(config.URL)![1];
    expect(answer[jsonPath]).toBe(`${app.url}/f/${answer.file.id}`);
    expect((await fetch(answer[jsonPath])).status).toBe(200);
  });

  test('when the ShareX download address is opened with a GET while logged in, then it leads to the settings page, where a config is made, not to a bare JSON 404', async ({
    app,
    alice: { cookie },
  }) => {
    const res = await getPage(app, '/settings/sharex', cookie);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/settings');
    expect(res.headers.get('content-type') ?? '').not.toMatch(/json/);
    expect(await res.text()).not.toContain('Page not found.');
  });

  test('when the ShareX download address is opened with a GET without a session, then it sends to log in, and back to the settings page after', async ({
    app,
  }) => {
    const res = await getPage(app, '/settings/sharex');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?redirectTo=%2Fsettings');
    expect(res.headers.get('content-type') ?? '').not.toMatch(/json/);
  });

  test("when the ShareX config is asked for with a token that is not the user's, then 400 and no file", async ({
    app,
    alice: { cookie },
    bob,
  }) => {
    const strangerCookie = bob.cookie;
    const token = await createWithForm(app, cookie, 'mine only');
    const res = await postForm(app, '/settings/sharex', { token }, { cookie: strangerCookie });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(await res.text()).toContain('not one of your valid API tokens');
  });
});

describe('the password and sessions sections', () => {
  const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

  test('when a user opens the page, then each of their sessions is listed by browser and address, this one marked', async ({
    app,
    keepers: { loggedIn, loginFrom },
  }) => {
    const { name, cookie } = await loggedIn(FIREFOX);
    await loginFrom(name, 'curl/8.5.0');
    const text = visibleText(await (await getPage(app, '/settings', cookie)).text());
    expect(text).toContain('Firefox 133 on Linux (this session)');
    expect(text).toContain('curl 8.5.0');
    expect(text).toContain('127.0.0.1');
    expect(text).toContain('Log out everywhere');
  });

  test('when the password is changed with the form, then the page says so, other sessions are logged out and this one stays', async ({
    app,
    keepers: { loggedIn, loginFrom, filesStatus },
  }) => {
    const { name, cookie } = await loggedIn(FIREFOX);
    const other = await loginFrom(name, 'curl/8.5.0');
    const fields = {
      intent: 'change-password',
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'new and long enough',
      confirmPassword: 'new and long enough',
    };
    const res = await postForm(app, '/settings', fields, { cookie });
    expect(res.status).toBe(200);
    expect(visibleText(await res.text())).toContain('Your password was changed. 1 other session was logged out.');
    expect(await filesStatus(other)).toBe(401);
    expect(await filesStatus(cookie)).toBe(200);
    await loginFrom(name, FIREFOX, 'new and long enough');
  });

  test('when the two new passwords differ, then the form comes back with status 400 and the reason, and nothing changes', async ({
    app,
    keepers: { loggedIn, loginFrom },
  }) => {
    const { name, cookie } = await loggedIn(FIREFOX);
    const fields = {
      intent: 'change-password',
      currentPassword: DEFAULT_PASSWORD,
      newPassword: 'new and long enough',
      confirmPassword: 'new and long enougj',
    };
    const res = await postForm(app, '/settings', fields, { cookie });
    expect(res.status).toBe(400);
    expect(visibleText(await res.text())).toContain('The new password and its confirmation do not match');
    await loginFrom(name, FIREFOX);
  });

  test('when the token form is refused without JavaScript, then it comes back with the name and lifetime as typed', async ({
    app,
    alice: { cookie },
  }) => {
    const name = `${'n'.repeat(100)}<b>`;
    const res = await postForm(app, '/settings', { intent: 'create-token', name, expiresInDays: '365' }, { cookie });
    expect(res.status).toBe(400);
    const html = await res.text();
    const form = /<form[^>]*class="token-form"[\s\S]*?<\/form>/.exec(html)![0];
    expect(/<input[^>]*name="name"[^>]*value="([^"]*)"/.exec(form)?.[1]).toBe(`${'n'.repeat(100)}&lt;b&gt;`);
    expect(form).toMatch(/<option value="365" selected="">1 year<\/option>/);
    expect(html).not.toContain('<b>');
  });

  test('when the password form is refused, then no password comes back in its fields', async ({
    app,
    keepers: { loggedIn },
  }) => {
    const { cookie } = await loggedIn(FIREFOX);
    const fields = {
      intent: 'change-password',
      currentPassword: 'typed current one',
      newPassword: 'typed new one',
      confirmPassword: 'typed other one',
    };
    const res = await postForm(app, '/settings', fields, { cookie });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).not.toMatch(/typed (current|new|other) one/);
  });

  test('when the password form is refused for a field, then the message names it by its label ("Current password", "New password")', async ({
    app,
    keepers: { loggedIn },
  }) => {
    const { cookie } = await loggedIn(FIREFOX);
    const noCurrent = await postForm(
      app,
      '/settings',
      {
        intent: 'change-password',
        currentPassword: '',
        newPassword: 'new and long enough',
        confirmPassword: 'new and long enough',
      },
      { cookie },
    );
    expect(noCurrent.status).toBe(400);
    expect(alertsOf(await noCurrent.text())).toEqual(['Current password is required']);
    const short = await postForm(
      app,
      '/settings',
      { intent: 'change-password', currentPassword: DEFAULT_PASSWORD, newPassword: 'short', confirmPassword: 'short' },
      { cookie },
    );
    expect(short.status).toBe(400);
    expect(alertsOf(await short.text())).toEqual(['New password must be at least 8 characters long']);
  });

  test('when another session is logged out with its button, then the page says so and that session stops working', async ({
    app,
    keepers: { loggedIn, loginFrom, filesStatus },
  }) => {
    const { name, cookie } = await loggedIn(FIREFOX);
    const other = await loginFrom(name, 'curl/8.5.0');
    const res = await postForm(
      app,
      '/settings',
      { intent: 'revoke-session', id: claimsOf(tokenOf(other)).sid! },
      { cookie },
    );
    expect(res.status).toBe(200);
    const text = visibleText(await res.text());
    expect(text).toContain('The session was logged out.');
    expect(text).not.toContain('curl 8.5.0');
    expect(await filesStatus(other)).toBe(401);
  });

  test('when this session is logged out from the list, or everywhere, then the browser goes to the login page without its cookie', async ({
    app,
    keepers: { loggedIn, loginFrom, filesStatus },
  }) => {
    const { name, cookie } = await loggedIn(FIREFOX);
    const own = await postForm(
      app,
      '/settings',
      { intent: 'revoke-session', id: claimsOf(tokenOf(cookie)).sid! },
      { cookie },
    );
    expect(own.status).toBe(302);
    expect(own.headers.get('location')).toBe('/login');
    expect(own.headers.getSetCookie().some((c) => c.startsWith('token=;'))).toBe(true);
    expect(await filesStatus(cookie)).toBe(401);

    const again = await loginFrom(name, FIREFOX);
    const elsewhere = await loginFrom(name, 'curl/8.5.0');
    const all = await postForm(app, '/settings', { intent: 'revoke-all-sessions' }, { cookie: again });
    expect(all.status).toBe(302);
    expect(all.headers.get('location')).toBe('/login');
    expect(await filesStatus(again)).toBe(401);
    expect(await filesStatus(elsewhere)).toBe(401);
  });

  test('when a form names an unknown action, then 400 and a message', async ({ app, keepers: { loggedIn } }) => {
    const { cookie } = await loggedIn(FIREFOX);
    const res = await postForm(app, '/settings', { intent: 'make-me-admin' }, { cookie });
    expect(res.status).toBe(400);
    expect(visibleText(await res.text())).toContain('Unknown form.');
  });
});
