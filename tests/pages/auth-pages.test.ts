// The pages a visitor meets first: home, log in, log out, the
// not-found page and the headers every page carries. Plain HTTP, as without JavaScript.
import { DEFAULT_PASSWORD, type TestApp } from '../helpers/app';
import { test as base, describe, expect, registeredUser, type TestUser } from '../helpers/fixtures';
import {
  alertsOf,
  apiUpload,
  cookieAttributes,
  getPage,
  linkHrefs,
  postForm,
  sessionSetCookie,
  visibleText,
} from '../helpers/pages-fixtures';

/** mallory: a user whose password is guessed wrong. */
const test = base.extend('mallory', { scope: 'file' }, ({ app }) => registeredUser(app, 'mallory'));

/** Logs in through the page form and returns the response (never followed). */
function pageLogin(app: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return postForm(app, '/login', fields, { headers });
}

describe('GET /', () => {
  test('when a visitor is not logged in, then the home page says what the service is and links to log in', async ({
    app,
  }) => {
    const res = await getPage(app, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(visibleText(html)).toContain('Share files with a link');
    expect(linkHrefs(html)).toContain('/login');
    expect(linkHrefs(html)).not.toContain('/upload');
    expect(linkHrefs(html)).not.toContain('/files');
  });

  test('when a user is logged in, then the home page links to upload and to their files, not to log in', async ({
    app,
    alice,
  }) => {
    const res = await getPage(app, '/', alice.cookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(linkHrefs(html)).toEqual(expect.arrayContaining(['/upload', '/files']));
    expect(linkHrefs(html)).not.toContain('/login');
    expect(visibleText(html)).toContain('Upload a file');
    expect(visibleText(html)).toContain('Log out');
  });
});

describe('GET /login', () => {
  test('when a visitor opens the login page, then it shows a form posting username and password', async ({ app }) => {
    const res = await getPage(app, '/login');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<form[^>]*method="post"/i);
    expect(html).toMatch(/<input[^>]*name="username"/);
    expect(html).toMatch(
      /<input[^>]*name="password"[^>]*type="password"|<input[^>]*type="password"[^>]*name="password"/,
    );
    expect(visibleText(html)).toContain('Log in');
  });

  test('when a logged-in user opens the login page, then they are sent on to their files', async ({ app, alice }) => {
    const res = await getPage(app, '/login', alice.cookie);
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/files');
  });
});

describe('POST /login', () => {
  test('when the username and password are right, then it sets the session cookie and redirects to /files', async ({
    app,
    alice,
  }) => {
    const res = await pageLogin(app, { username: alice.username, password: DEFAULT_PASSWORD });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/files');
    const setCookie = sessionSetCookie(res);
    expect(setCookie).toBeDefined();
    const attrs = cookieAttributes(setCookie!);
    expect(attrs.httponly).toBe(true);
    expect(attrs.path).toBe('/');
    expect(String(attrs.samesite).toLowerCase()).toBe('lax');
    expect(attrs['max-age']).toBe('2592000');
    expect(attrs.secure).toBeUndefined(); // BASE_URL is http here

    // The cookie is a working session: the files page opens with it.
    const files = await getPage(app, '/files', setCookie!.split(';')[0]);
    expect(files.status).toBe(200);
  });

  test('when the form carries a local redirectTo, then login lands there', async ({ app, alice }) => {
    const res = await pageLogin(app, {
      username: alice.username,
      password: DEFAULT_PASSWORD,
      redirectTo: '/upload?from=home',
    });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/upload?from=home');
    expect(sessionSetCookie(res)).toBeDefined();
  });

  test.for([
    ['//evil.com', '/files'],
    ['/\\evil.com', '/files'],
    ['https://evil.com', '/files'],
    ['javascript:alert(1)', '/files'],
    ['http:/evil.com', '/files'],
    ['/\t/evil.com', '/files'],
    ['/%2F%2Fevil.com', '/%2F%2Fevil.com'],
    // Dot segments that collapse into "//evil.com" once resolved.
    ['/.//evil.com', '/files'],
    ['/..//evil.com', '/files'],
    ['/a/..//evil.com/x?y#z', '/files'],
    ['/%2e%2e//evil.com', '/files'],
    ['/%2e//evil.com', '/files'],
  ])(
    'when redirectTo is %j, then login lands on %j of this site, never elsewhere',
    async ([redirectTo, expected], { app, alice }) => {
      const res = await pageLogin(app, { username: alice.username, password: DEFAULT_PASSWORD, redirectTo });
      expect([302, 303]).toContain(res.status);
      const location = res.headers.get('location')!;
      expect(location).toBe(expected);
      // However a browser resolves it, it stays on this origin.
      expect(new URL(location, app.url).origin).toBe(app.url);
    },
  );

  test.for(['//evil.com/x', '/.//evil.com/x'])(
    'when the login page is opened with the hostile redirectTo %j and the user is already logged in, then it stays on this site',
    async (redirectTo, { app, alice }) => {
      const res = await getPage(app, `/login?redirectTo=${encodeURIComponent(redirectTo)}`, alice.cookie);
      expect([302, 303]).toContain(res.status);
      expect(res.headers.get('location')).toBe('/files');
    },
  );

  test('when the login page carries redirectTo in its address, then the form sends it back with the credentials', async ({
    app,
  }) => {
    const html = await (await getPage(app, `/login?redirectTo=${encodeURIComponent('/upload')}`)).text();
    expect(html).toMatch(/<input[^>]*name="redirectTo"[^>]*value="\/upload"/);
  });

  test('when the password is wrong, then the form comes back with status 401, the message and the username kept, and no cookie', async ({
    app,
    mallory,
  }) => {
    const res = await pageLogin(app, { username: mallory.username, password: 'not the password' });
    expect(res.status).toBe(401);
    expect(sessionSetCookie(res)).toBeUndefined();
    const html = await res.text();
    expect(visibleText(html)).toContain('Invalid username or password');
    expect(html).toMatch(/<input[^>]*name="password"/);
    expect(html).toMatch(/<input[^>]*name="username"[^>]*value="mallory"/);
  });

  test('when the form comes without a password, or without a username, then 400 with the form again asking for both in words, not the validator\'s "Expected string, received null"', async ({
    app,
    mallory,
  }) => {
    const sent: Array<Record<string, string>> = [
      { username: mallory.username },
      { password: 'not the password' },
      { username: '', password: '' },
    ];
    for (const fields of sent) {
      const res = await pageLogin(app, fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(sessionSetCookie(res)).toBeUndefined();
      const html = await res.text();
      expect(alertsOf(html), JSON.stringify(fields)).toEqual(['Enter your username and password.']);
      expect(visibleText(html)).not.toMatch(/Expected|received/);
      expect(html).toMatch(/<input[^>]*name="password"/);
    }
    // The username typed is kept.
    expect(await (await pageLogin(app, { username: mallory.username })).text()).toMatch(
      /<input[^>]*name="username"[^>]*value="mallory"/,
    );
  });

  test('when the username is over 256 characters, then 400 with the form again and the limit in words, not the validator\'s "String must contain at most 256 character(s)"', async ({
    app,
  }) => {
    const res = await pageLogin(app, { username: 'u'.repeat(257), password: 'not the password' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(alertsOf(html)).toEqual(['Username must be at most 256 characters']);
    expect(html).toMatch(/<input[^>]*name="password"/);
  });

  test('when the username is unknown, then the answer is the same 401 page as for a wrong password', async ({
    app,
  }) => {
    const res = await pageLogin(app, { username: 'nobody-here', password: 'whatever-password' });
    expect(res.status).toBe(401);
    expect(visibleText(await res.text())).toContain('Invalid username or password');
  });

  test('when one username keeps failing, then the login page answers 429 with Retry-After and says how long to wait in words, even for the right password', async ({
    app,
  }) => {
    await app.createUser('throttled');
    let res = await pageLogin(app, { username: 'throttled', password: 'wrong-0' });
    for (let attempt = 1; res.status === 401 && attempt < 12; attempt++) {
      res = await pageLogin(app, { username: 'throttled', password: `wrong-${attempt}` });
    }
    expect(res.status).toBe(429);
    res = await pageLogin(app, { username: 'throttled', password: DEFAULT_PASSWORD });
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(sessionSetCookie(res)).toBeUndefined();
    const html = await res.text();
    expect(visibleText(html)).toMatch(/too many/i);
    // The wait the header gives, in minutes rounded up, rather than "later".
    const minutes = Math.ceil(retryAfter / 60);
    expect(alertsOf(html)).toEqual([
      `Too many failed login attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    ]);
    expect(html).toMatch(/<input[^>]*name="password"/); // the form, to try again later
  }, 60_000);

  test('when another site posts the login form (Origin: https://evil.example), then it is refused with 403 and no cookie', async ({
    app,
    alice,
  }) => {
    const res = await pageLogin(
      app,
      { username: alice.username, password: DEFAULT_PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect(sessionSetCookie(res)).toBeUndefined();
    expect(res.headers.get('location')).toBeNull();
  });

  test('when a browser posts the login form from this very site, then the Origin check lets it through', async ({
    app,
    alice,
  }) => {
    const res = await pageLogin(
      app,
      { username: alice.username, password: DEFAULT_PASSWORD },
      { origin: app.url, 'sec-fetch-site': 'same-origin' },
    );
    expect([302, 303]).toContain(res.status);
    expect(sessionSetCookie(res)).toBeDefined();
  });
});

describe('GET /logout and POST /logout', () => {
  test('when a logged-in user opens /logout, then it shows a one-button form and neither clears the cookie nor ends the session', async ({
    app,
    alice,
  }) => {
    const token = await app.login(alice.username);
    const res = await getPage(app, '/logout', token);
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    const html = await res.text();
    expect(html).toMatch(/<form[^>]*method="post"/i);
    expect(visibleText(html)).toContain('Log out of this browser?');
    // The session still works afterwards.
    const api = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: token } });
    expect(api.status).toBe(200);
  });

  test('when a logged-in user posts /logout, then the cookie is cleared, they land on /login and the old token is dead', async ({
    app,
    alice,
  }) => {
    const token = await app.login(alice.username);
    const res = await postForm(app, '/logout', {}, { cookie: token });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/login');
    const setCookie = sessionSetCookie(res);
    expect(setCookie).toBeDefined();
    const attrs = cookieAttributes(setCookie!);
    expect(attrs['max-age']).toBe('0');
    expect(attrs.path).toBe('/');
    expect(setCookie!.split(';')[0]).toBe('token=');

    // Even a copy of the old token no longer opens anything.
    const api = await fetch(`${app.url}/api/v1/files`, { headers: { cookie: token } });
    expect(api.status).toBe(401);
    const page = await getPage(app, '/files', token);
    expect([302, 303]).toContain(page.status);
    expect(page.headers.get('location')).toBe('/login?redirectTo=%2Ffiles');
  });

  test('when someone without a session opens /logout, then it says they are not logged in and links to the login page, with no form', async ({
    app,
  }) => {
    const res = await getPage(app, '/logout');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(visibleText(html)).toContain('You are not logged in.');
    expect(html).toMatch(/<a[^>]*href="\/login"[^>]*>Log in<\/a>/);
    expect(html).not.toMatch(/<form[^>]*method="post"/i);
  });

  test('when someone without a session posts /logout, then it still answers with the cleared cookie and /login', async ({
    app,
  }) => {
    const res = await postForm(app, '/logout', {});
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get('location')).toBe('/login');
    expect(cookieAttributes(sessionSetCookie(res)!)['max-age']).toBe('0');
  });
});

describe('the not-found page', () => {
  test('when a path matches nothing, then the not-found page is shown with status 404', async ({ app }) => {
    const res = await getPage(app, '/some/unknown/path');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const text = visibleText(await res.text());
    expect(text).toContain('Not found');
    expect(text).toContain('Page not found');
  });

  test('when a share link names no file, then the not-found page is shown with status 404', async ({ app }) => {
    const res = await getPage(app, '/f/doesNotExist123');
    expect(res.status).toBe(404);
    const text = visibleText(await res.text());
    expect(text).toContain('Not found');
    expect(text).toContain('This file does not exist, or it was deleted.');
  });

  test('when a raw link names no file, or one whose content is gone, then it is the share page\'s 404 page: "This file does not exist, or it was deleted.", not "Page not found."', async ({
    app,
    alice,
  }) => {
    const file = await apiUpload(app, alice.cookie, { filename: 'soon-gone.txt', type: 'text/plain', content: 'x' });
    await app.removeStored(file.storedName);
    for (const path of [
      '/f/AAAAAAAAAAAAAAAAAAAAAA/raw',
      '/f/doesNotExist123/raw',
      `/f/${file.id}/raw`,
      `/f/${file.id}/raw?download=1`,
    ]) {
      const res = await getPage(app, path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const text = visibleText(await res.text());
      expect(text, path).toContain('Not found');
      expect(text, path).toContain('This file does not exist, or it was deleted.');
      expect(text, path).not.toContain('Page not found.');
    }
    expect((await fetch(`${app.url}/f/AAAAAAAAAAAAAAAAAAAAAA/raw`, { method: 'HEAD' })).status).toBe(404);
  });

  test('when a share link is not even a possible id, then it is the same 404 page', async ({ app }) => {
    const res = await getPage(app, `/f/${encodeURIComponent('../../etc/passwd')}`);
    expect(res.status).toBe(404);
    expect(visibleText(await res.text())).toContain('Not found');
  });
});

describe('security headers of pages', () => {
  const pages: Array<
    [string, (visit: { app: TestApp; alice: TestUser; mallory: TestUser }) => Promise<Response>, number]
  > = [
    ['GET /', ({ app }) => getPage(app, '/'), 200],
    ['GET / (logged in)', ({ app, alice }) => getPage(app, '/', alice.cookie), 200],
    ['GET /login', ({ app }) => getPage(app, '/login'), 200],
    [
      'POST /login (wrong password)',
      ({ app, mallory }) => pageLogin(app, { username: mallory.username, password: 'wrong-password' }),
      401,
    ],
    ['GET /logout', ({ app, alice }) => getPage(app, '/logout', alice.cookie), 200],
    ['GET /files', ({ app, alice }) => getPage(app, '/files', alice.cookie), 200],
    ['GET /upload', ({ app, alice }) => getPage(app, '/upload', alice.cookie), 200],
    ['GET /files (redirect to login)', ({ app }) => getPage(app, '/files'), 302],
    ['GET /nope', ({ app }) => getPage(app, '/nope'), 404],
    ['GET /f/unknown', ({ app }) => getPage(app, '/f/unknown'), 404],
  ];

  test.for(pages)(
    'when %s is requested, then it carries nosniff, a no-framing policy and a Referrer-Policy',
    async ([_name, request, status], { app, alice, mallory }) => {
      const res = await request({ app, alice, mallory });
      expect(res.status).toBe(status);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      const noFraming = /frame-ancestors 'none'/.test(csp) || res.headers.get('x-frame-options') === 'DENY';
      expect(noFraming).toBe(true);
      expect(res.headers.get('referrer-policy')).toBeTruthy();
    },
  );
});
