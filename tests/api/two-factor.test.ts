// Two-factor codes for password logins (ADR 0043): setting them up through the API (a secret,
// then a first code, then ten recovery codes shown once), logging in with a code of the current,
// previous or next 30-second step (each accepted once), wrong codes throttled like wrong
// passwords, recovery codes used once, turning them off with a code, and `npm run users --
// reset-2fa`. The app's clock is the test's, moved to the middle of a step where it matters.
// Codes are computed here from RFC 6238 directly. Runs on both backends.
import { createHmac } from 'node:crypto';
import { cookieFrom, DEFAULT_PASSWORD, TestClock, type TestApp } from '../helpers/app';
import { test as base, describe, expect } from '../helpers/fixtures';
import { runNode, USERS_JS } from '../helpers/process';

const STEP_MS = 30_000;
const clock = new TestClock();

/** RFC 4648 base32 (no padding) to bytes. */
function base32Bytes(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((byte) => Number.parseInt(byte, 2)));
}

/** The 6-digit code of `secret` for the step `stepsAway` from the app's clock now (RFC 6238, SHA-1). */
function codeAt(secret: string, stepsAway = 0): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(clock.now() / STEP_MS) + stepsAway));
  const mac = createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** Moves the clock into a new step, 15 s from both its ends: a request's milliseconds never cross one. */
function nextStepMiddle(): void {
  const into = clock.now() % STEP_MS;
  clock.advance(STEP_MS - into + STEP_MS / 2);
}

function twoFactorRequests(app: TestApp) {
  let userCount = 0;
  const post = (path: string, body: unknown, cookie: string, method = 'POST') =>
    fetch(`${app.url}/api/v1${path}`, {
      method,
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const login = (username: string, extra: Record<string, unknown> = {}) =>
    fetch(`${app.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: DEFAULT_PASSWORD, ...extra }),
    });

  /** A new user of its own for each test, logged in, with two-factor codes on. */
  async function enrolledUser() {
    const username = `second${++userCount}`;
    await app.createUser(username);
    const cookie = cookieFrom(await login(username));
    const begun = await post('/me/2fa', {}, cookie);
    expect(begun.status).toBe(200);
    const { secret } = (await begun.json()) as { secret: string };
    nextStepMiddle();
    const confirmed = await post('/me/2fa/confirm', { code: codeAt(secret) }, cookie);
    expect(confirmed.status).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    // The code that confirmed is used: the logins of a test start a step later.
    nextStepMiddle();
    return { username, cookie, secret, recoveryCodes };
  }

  return { post, login, enrolledUser, newName: () => `second${++userCount}` };
}

const test = base.extend('twoFactor', { scope: 'file' }, ({ app }) => twoFactorRequests(app));
test.override('appOptions', { clock });

describe('setting up two-factor codes', () => {
  test('when a user begins, confirms with a first code and reads the status, then the secret, its otpauth URI and ten distinct recovery codes are given, and the status says on', async ({
    app,
    twoFactor: { post, login, newName },
  }) => {
    const username = newName();
    await app.createUser(username);
    const cookie = cookieFrom(await login(username));
    expect(await (await fetch(`${app.url}/api/v1/me/2fa`, { headers: { cookie } })).json()).toEqual({
      enabled: false,
      recoveryCodesLeft: 0,
    });

    const begun = await post('/me/2fa', {}, cookie);
    expect(begun.status).toBe(200);
    const { secret, otpauthUri } = await begun.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(new RegExp(`^otpauth://totp/.*${username}.*[?&]secret=${secret}`));

    nextStepMiddle();
    const wrong = await post('/me/2fa/confirm', { code: codeAt(secret, 3) }, cookie);
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toMatch(/code is wrong/);
    const confirmed = await post('/me/2fa/confirm', { code: codeAt(secret) }, cookie);
    expect(confirmed.status).toBe(200);
    const { recoveryCodes } = await confirmed.json();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);

    expect(await (await fetch(`${app.url}/api/v1/me/2fa`, { headers: { cookie } })).json()).toEqual({
      enabled: true,
      recoveryCodesLeft: 10,
    });
    expect((await post('/me/2fa', {}, cookie)).status).toBe(409);
    // Only hashes are kept: no recovery code and no secret of another shape in the row.
    const [row] = await app.rows('select "recovery_code_hashes" as "hashes" from "users" where "username" = ?', [
      username,
    ]);
    for (const code of recoveryCodes) expect(String(row.hashes)).not.toContain(code);
  });

  test('when an API token asks to begin, then 403: two-factor codes are managed with a login session', async ({
    app,
    alice,
  }) => {
    const token = await alice.createToken();
    const res = await fetch(`${app.url}/api/v1/me/2fa`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
  });
});

describe('logging in with two-factor codes', () => {
  test('when the password is right and no code is sent, then 401 names the missing code, sets no cookie, and does not count as a failed login', async ({
    twoFactor: { login, enrolledUser },
  }) => {
    const { username } = await enrolledUser();
    for (let i = 0; i < 7; i++) {
      const res = await login(username);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'A two-factor code is required', twoFactorRequired: true });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    const wrongPassword = await login(username, { password: 'not the password' });
    expect(wrongPassword.status).toBe(401);
    expect(await wrongPassword.json()).toEqual({ error: 'Invalid username or password' });
  });

  test('when the current code is sent, then the login succeeds; the same code again is refused', async ({
    app,
    twoFactor: { login, enrolledUser },
  }) => {
    const { username, secret } = await enrolledUser();
    const res = await login(username, { code: codeAt(secret) });
    expect(res.status).toBe(200);
    const cookie = cookieFrom(res);
    expect((await fetch(`${app.url}/api/v1/files`, { headers: { cookie } })).status).toBe(200);

    const again = await login(username, { code: codeAt(secret) });
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({
      error: 'The two-factor code is wrong or was already used',
      twoFactorRequired: true,
    });
  });

  test('when the code of the previous step, then of the next step is sent, then both are accepted; the current one after the next is refused', async ({
    twoFactor: { login, enrolledUser },
  }) => {
    const { username, secret } = await enrolledUser();
    // The previous step must be later than the one that confirmed the secret.
    nextStepMiddle();
    expect((await login(username, { code: codeAt(secret, -1) })).status).toBe(200);
    expect((await login(username, { code: codeAt(secret, 1) })).status).toBe(200);
    expect((await login(username, { code: codeAt(secret) })).status).toBe(401);
  });

  test('when the code is two steps away either way, then it is refused', async ({
    twoFactor: { login, enrolledUser },
  }) => {
    const { username, secret } = await enrolledUser();
    expect((await login(username, { code: codeAt(secret, 2) })).status).toBe(401);
    expect((await login(username, { code: codeAt(secret, -2) })).status).toBe(401);
    expect((await login(username, { code: codeAt(secret) })).status).toBe(200);
  });

  test('when wrong codes follow a right password, then the throttle answers as for wrong passwords: 401 five times, then 429 even for the right code', async ({
    app,
    twoFactor: { login, enrolledUser },
  }) => {
    const { username, secret } = await enrolledUser();
    const wrongCode = codeAt(secret) === '000000' ? '111111' : '000000';
    const byCode: number[] = [];
    for (let i = 0; i < 5; i++) byCode.push((await login(username, { code: wrongCode })).status);
    const refused = await login(username, { code: codeAt(secret) });
    byCode.push(refused.status);

    const other = `plain${Date.now()}`;
    await app.createUser(other);
    const byPassword: number[] = [];
    for (let i = 0; i < 5; i++) byPassword.push((await login(other, { password: 'not the password' })).status);
    const refusedPassword = await login(other);
    byPassword.push(refusedPassword.status);

    expect(byCode).toEqual([401, 401, 401, 401, 401, 429]);
    expect(byPassword).toEqual(byCode);
    // The same words, but for the wait, which counts from each one's own failures.
    const words = async (res: Response) =>
      ((await res.json()) as { error: string }).error.replace(/Try again in \d+ \w+\./, 'Try again in …');
    const [forCode, forPassword] = [await words(refused), await words(refusedPassword)];
    expect(forCode).toEqual(forPassword);
    expect(forCode).toMatch(/Try again in …$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('when a recovery code is sent instead of a code, then it logs in once; the same recovery code again is refused, another one works', async ({
    app,
    twoFactor: { login, enrolledUser },
  }) => {
    const { username, cookie, recoveryCodes } = await enrolledUser();
    expect((await login(username, { code: recoveryCodes[0] })).status).toBe(200);
    expect((await login(username, { code: recoveryCodes[0] })).status).toBe(401);
    expect((await login(username, { code: recoveryCodes[1].toUpperCase().replaceAll('-', ' ') })).status).toBe(200);
    expect(await (await fetch(`${app.url}/api/v1/me/2fa`, { headers: { cookie } })).json()).toEqual({
      enabled: true,
      recoveryCodesLeft: 8,
    });
  });
});

describe('turning two-factor codes off', () => {
  test('when the user sends a wrong code, then 400 and they stay on; with a current code, then they are off and the password alone logs in', async ({
    twoFactor: { post, login, enrolledUser },
  }) => {
    const { username, cookie, secret } = await enrolledUser();
    const wrong = await post('/me/2fa', { code: codeAt(secret, 5) }, cookie, 'DELETE');
    expect(wrong.status).toBe(400);
    expect((await login(username)).status).toBe(401);

    const off = await post('/me/2fa', { code: codeAt(secret) }, cookie, 'DELETE');
    expect(off.status).toBe(200);
    expect(await off.json()).toEqual({ ok: true });
    expect((await login(username)).status).toBe(200);
  });

  test('when the user sends a recovery code, then they are off', async ({
    twoFactor: { post, login, enrolledUser },
  }) => {
    const { username, cookie, recoveryCodes } = await enrolledUser();
    expect((await post('/me/2fa', { code: recoveryCodes[9] }, cookie, 'DELETE')).status).toBe(200);
    expect((await login(username)).status).toBe(200);
  });

  test('when an admin runs `users reset-2fa <username>`, then one line says so and the password alone logs in; an unknown user is one line and a non-zero exit', async ({
    app,
    twoFactor: { login, enrolledUser },
  }) => {
    const { username } = await enrolledUser();
    const reset = await runNode(USERS_JS, ['reset-2fa', username], { env: app.env });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toBe(`Two-factor codes of ${username} turned off\n`);
    expect((await login(username)).status).toBe(200);

    const unknown = await runNode(USERS_JS, ['reset-2fa', 'nobody-here'], { env: app.env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe('users: No user named "nobody-here"\n');
  });
});
