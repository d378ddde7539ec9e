// The login page's code step opens one session (ADR 0058): the cookie that says whose password
// was right is marked finished in the database when the sign-in completes, so a copy saved
// before then opens nothing afterwards, with any code, the session it made logged out or not.
import { cookieFrom, DEFAULT_PASSWORD, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { alertsOf, getPage, postForm } from '../helpers/pages-fixtures';
import { middleOfNextStep, totpCode } from '../helpers/totp';

const clock = new TestClock();
const FINISHED = 'This sign-in took too long or was finished already: start again.';

function nextStepMiddle(): void {
  clock.advance(middleOfNextStep(clock.now()) - clock.now());
}

function codeSteps(app: TestApp) {
  let users = 0;
  const apiLogin = (username: string) =>
    fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: DEFAULT_PASSWORD }),
    });

  /** A new user with two-factor codes on (set up through the API); their id, secret and recovery codes. */
  async function enrolledUser() {
    const username = `stepped${++users}`;
    const id = await app.createUser(username);
    const cookie = cookieFrom(await apiLogin(username));
    const post = (path: string, body: unknown) =>
      fetch(`${app.url}/api/v1${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const { secret } = (await (await post('/me/2fa', {})).json()) as { secret: string };
    nextStepMiddle();
    const confirmed = await post('/me/2fa/confirm', { code: totpCode(secret, clock.now()) });
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    // The setting-up session is not one the code step made.
    await fetch(`${app.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } });
    nextStepMiddle();
    return { id, username, secret, recoveryCodes };
  }

  /** The password step on the page: the step cookie (`login_code_step=…`) it answers with. */
  async function passwordStep(username: string): Promise<string> {
    const step = await postForm(app, '/login', { username, password: DEFAULT_PASSWORD, redirectTo: '/files' });
    expect(step.status).toBe(401);
    return step.headers.getSetCookie()[0].split(';')[0];
  }

  const codeStep = (stepCookie: string, code: string) =>
    postForm(app, '/login', { step: 'code', code, redirectTo: '/files' }, { cookie: stepCookie });

  const sessionsOf = async (userId: string) =>
    Number((await app.rows('select count(*) as "n" from "sessions" where "user_id" = ?', [userId]))[0].n);

  return { enrolledUser, passwordStep, codeStep, sessionsOf };
}

const test = base.extend('steps', { scope: 'file' }, ({ app }) => codeSteps(app));
test.override('appOptions', { clock });

/** The replayed step's answer: refused as finished, no session cookie, the step cookie dropped. */
async function expectRefusedAsFinished(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(res.headers.getSetCookie().some((line) => line.startsWith('token='))).toBe(false);
  expect(res.headers.getSetCookie().some((line) => /^login_code_step=;.*Max-Age=0/.test(line))).toBe(true);
  const html = await res.text();
  expect(alertsOf(html)).toEqual([FINISHED]);
  expect(html).toMatch(/name="password"/);
}

describe('the code step’s cookie, used once', () => {
  test('when the step cookie saved after the password is sent again with a recovery code after the sign-in finished, then it is refused as finished, no session is made and the recovery code stays unused', {
    timeout: 60_000,
  }, async ({ app, steps: { enrolledUser, passwordStep, codeStep, sessionsOf } }) => {
    const { id, username, secret, recoveryCodes } = await enrolledUser();
    const saved = await passwordStep(username);
    const signedIn = await codeStep(saved, totpCode(secret, clock.now()));
    expect(signedIn.status).toBe(302);
    expect(await sessionsOf(id)).toBe(1);

    clock.advance(60_000);
    await expectRefusedAsFinished(await codeStep(saved, recoveryCodes[0]));
    expect(await sessionsOf(id)).toBe(1);
    // The page the saved cookie brings up is the password form, not the code step.
    const page = await (await getPage(app, '/login?redirectTo=%2Ffiles', saved)).text();
    expect(page).toMatch(/name="password"/);
    expect(page).not.toMatch(/name="code"/);
    // The recovery code was not spent on the refused step: it signs in once through a new one.
    const fresh = await passwordStep(username);
    expect((await codeStep(fresh, recoveryCodes[0])).status).toBe(302);
    expect(await sessionsOf(id)).toBe(2);
  });

  test('when the session the step made is logged out and the saved step cookie is sent again with a recovery code, then it is refused as finished and no session is made', {
    timeout: 60_000,
  }, async ({ app, steps: { enrolledUser, passwordStep, codeStep, sessionsOf } }) => {
    const { id, username, secret, recoveryCodes } = await enrolledUser();
    const saved = await passwordStep(username);
    const signedIn = await codeStep(saved, totpCode(secret, clock.now()));
    expect(signedIn.status).toBe(302);
    const session = signedIn.headers
      .getSetCookie()
      .find((line) => line.startsWith('token='))
      ?.split(';')[0];
    expect((await postForm(app, '/logout', {}, { cookie: session })).status).toBe(302);
    expect(await sessionsOf(id)).toBe(0);

    await expectRefusedAsFinished(await codeStep(saved, recoveryCodes[1]));
    expect(await sessionsOf(id)).toBe(0);
  });
});
