// Two-factor codes on the pages, without JavaScript (ADR 0043): the settings page sets them up
// (a QR code made on the server and the secret in text, then a first code; the recovery codes
// shown once) and turns them off with a code; the login page asks for the code in a second
// step once the password was right. Plain form posts, as a browser without scripts sends them.
import { cookieFrom, DEFAULT_PASSWORD, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { alertsOf, getPage, postForm, visibleText } from '../helpers/pages-fixtures';
import { middleOfNextStep, totpCode } from '../helpers/totp';

const clock = new TestClock();

function nextStepMiddle(): void {
  clock.advance(middleOfNextStep(clock.now()) - clock.now());
}

function twoFactorPages(app: TestApp) {
  let users = 0;
  async function loggedIn(): Promise<{ username: string; cookie: string }> {
    const username = `guarded${++users}`;
    await app.createUser(username);
    const res = await postForm(app, '/login', { username, password: DEFAULT_PASSWORD, redirectTo: '/files' });
    expect(res.status).toBe(302);
    return { username, cookie: cookieFrom(res) };
  }

  /** Sets two-factor codes up with the settings page's forms; the secret and the recovery codes. */
  async function setUp(cookie: string): Promise<{ secret: string; recoveryCodes: string[] }> {
    const begun = await postForm(app, '/settings', { intent: 'begin-2fa' }, { cookie });
    expect(begun.status).toBe(200);
    const html = await begun.text();
    const secret = /<code>([A-Z2-7]{32})<\/code>/.exec(html)?.[1];
    expect(secret).toBeDefined();
    const qr = /<img[^>]*src="data:image\/svg\+xml;base64,([^"]+)"[^>]*alt="QR code of the secret"/.exec(html)?.[1];
    expect(Buffer.from(qr ?? '', 'base64').toString()).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);

    nextStepMiddle();
    const confirmed = await postForm(
      app,
      '/settings',
      { intent: 'confirm-2fa', code: totpCode(secret!, clock.now()) },
      { cookie },
    );
    expect(confirmed.status).toBe(200);
    const page = await confirmed.text();
    expect(visibleText(page)).toContain('Two-factor codes are on.');
    const recoveryCodes = [...page.matchAll(/<code>([0-9a-f]{4}(?:-[0-9a-f]{4}){3})<\/code>/g)].map((m) => m[1]);
    expect(recoveryCodes).toHaveLength(10);
    nextStepMiddle();
    return { secret: secret!, recoveryCodes };
  }
  return { loggedIn, setUp };
}

const test = base.extend('pages', { scope: 'file' }, ({ app }) => twoFactorPages(app));
test.override('appOptions', { clock });

describe('the settings page’s two-factor section', () => {
  test('when a user sets up two-factor codes, then a QR code and the secret are shown, a first code turns them on, the recovery codes are shown once, and the page says on', async ({
    app,
    pages: { loggedIn, setUp },
  }) => {
    const { cookie } = await loggedIn();
    expect(visibleText(await (await getPage(app, '/settings', cookie)).text())).toContain('Set up two-factor codes');
    const { recoveryCodes } = await setUp(cookie);

    const later = await (await getPage(app, '/settings', cookie)).text();
    expect(visibleText(later)).toContain('On: logging in with your password also needs a code');
    expect(visibleText(later)).toContain('10 recovery codes are left');
    for (const code of recoveryCodes) expect(later).not.toContain(code);
  });

  test('when a wrong first code is sent, then the section says so, the codes stay off, and the same secret and QR code are shown for the right code, which turns them on', async ({
    app,
    pages: { loggedIn },
  }) => {
    const { cookie } = await loggedIn();
    const begun = await (await postForm(app, '/settings', { intent: 'begin-2fa' }, { cookie })).text();
    const secretOf = (html: string) => /<code>([A-Z2-7]{32})<\/code>/.exec(html)?.[1];
    const qrCodeOf = (html: string) => /<img[^>]*src="(data:image\/svg\+xml;base64,[^"]+)"/.exec(html)?.[1];
    const secret = secretOf(begun);
    expect(secret).toBeDefined();

    const wrong = await postForm(app, '/settings', { intent: 'confirm-2fa', code: '12345x' }, { cookie });
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(alertsOf(html)).toEqual(['The code is wrong; check that the clock of your device is right and try again.']);
    expect(secretOf(html)).toBe(secret);
    expect(qrCodeOf(html)).toBe(qrCodeOf(begun));
    expect((await (await fetch(`${app.url}/api/v1/me/2fa`, { headers: { cookie } })).json()).enabled).toBe(false);

    nextStepMiddle();
    const right = await postForm(
      app,
      '/settings',
      { intent: 'confirm-2fa', code: totpCode(secret!, clock.now()) },
      { cookie },
    );
    expect(right.status).toBe(200);
    expect(visibleText(await right.text())).toContain('Two-factor codes are on.');
  });

  test('when the user turns them off with a wrong code, then they stay on; with a current code, then they are off', async ({
    app,
    pages: { loggedIn, setUp },
  }) => {
    const { cookie } = await loggedIn();
    const { secret } = await setUp(cookie);
    const wrong = await postForm(app, '/settings', { intent: 'disable-2fa', code: '000000' }, { cookie });
    expect(wrong.status).toBe(400);
    expect(alertsOf(await wrong.text())).toEqual(['The two-factor code is wrong or was already used.']);
    const off = await postForm(
      app,
      '/settings',
      { intent: 'disable-2fa', code: totpCode(secret, clock.now()) },
      { cookie },
    );
    expect(off.status).toBe(200);
    expect(visibleText(await off.text())).toContain('Two-factor codes are off');
  });
});

describe('the login page with two-factor codes on', () => {
  test('when the password is right, then a second step asks for the code without the password in it; a wrong code is refused there, the right one logs in', async ({
    app,
    pages: { loggedIn, setUp },
  }) => {
    const { username, cookie } = await loggedIn();
    const { secret } = await setUp(cookie);

    const step = await postForm(app, '/login', { username, password: DEFAULT_PASSWORD, redirectTo: '/files' });
    expect(step.status).toBe(401);
    // No session yet: a signed, short-lived step cookie says whose password was right.
    const stepCookies = step.headers.getSetCookie();
    expect(stepCookies).toHaveLength(1);
    // Path=/: with JavaScript the code is sent to /login.data (ADR 0063).
    expect(stepCookies[0]).toMatch(/^login_code_step=[^;]+;.*Max-Age=300;.*Path=\/;.*HttpOnly/);
    const stepCookie = stepCookies[0].split(';')[0];
    expect(step.headers.get('cache-control')).toBe('no-store');
    const html = await step.text();
    expect(visibleText(html)).toContain(`Enter the code your authenticator app shows for ${username}`);
    expect(html).toMatch(/<input[^>]*name="code"/);
    expect(html).not.toContain(DEFAULT_PASSWORD);
    expect(html).not.toMatch(/name="password"/);
    expect(alertsOf(html)).toEqual([]);

    // The step cookie alone, without a code, logs nobody in; nor does a code without the cookie.
    const noCookie = await postForm(app, '/login', { step: 'code', code: totpCode(secret, clock.now()) });
    expect(noCookie.status).toBe(400);
    expect(noCookie.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);

    const wrong = await postForm(app, '/login', { step: 'code', code: '000000' }, { cookie: stepCookie });
    expect(wrong.status).toBe(401);
    expect(alertsOf(await wrong.text())).toEqual(['The two-factor code is wrong or was already used.']);

    const right = await postForm(
      app,
      '/login',
      { step: 'code', code: totpCode(secret, clock.now()), redirectTo: '/files' },
      { cookie: stepCookie },
    );
    expect(right.status).toBe(302);
    expect(right.headers.get('location')).toBe('/files');
    const session = right.headers.getSetCookie().find((line) => line.startsWith('token='));
    expect(session).toBeDefined();
    expect(right.headers.getSetCookie().some((line) => /^login_code_step=;.*Max-Age=0/.test(line))).toBe(true);
    expect((await getPage(app, '/files', session!.split(';')[0])).status).toBe(200);
  });

  test('when "Start again" is followed from the second step, then its cookie goes and the password form shows', async ({
    app,
    pages: { loggedIn, setUp },
  }) => {
    const { username, cookie } = await loggedIn();
    await setUp(cookie);
    const step = await postForm(app, '/login', { username, password: DEFAULT_PASSWORD, redirectTo: '/files' });
    const stepCookie = step.headers.getSetCookie()[0].split(';')[0];
    const again = await getPage(app, '/login?redirectTo=%2Ffiles', stepCookie);
    expect(visibleText(await again.text())).toContain('Enter the code your authenticator app shows for');
    const restart = await getPage(app, '/login?restart=1&redirectTo=%2Ffiles', stepCookie);
    expect(restart.status).toBe(302);
    expect(restart.headers.get('location')).toBe('/login?redirectTo=%2Ffiles');
    expect(restart.headers.getSetCookie().some((line) => /^login_code_step=;.*Max-Age=0/.test(line))).toBe(true);
    const first = await getPage(app, '/login?redirectTo=%2Ffiles');
    expect(await first.text()).toMatch(/name="password"/);
  });

  test('when a recovery code is typed in the second step, then it logs in once', async ({
    app,
    pages: { loggedIn, setUp },
  }) => {
    const { username, cookie } = await loggedIn();
    const { recoveryCodes } = await setUp(cookie);
    const fields = { username, password: DEFAULT_PASSWORD, code: recoveryCodes[3], redirectTo: '/files' };
    expect((await postForm(app, '/login', fields)).status).toBe(302);
    expect((await postForm(app, '/login', fields)).status).toBe(401);
  });
});
