// What a sign-in with the OpenID Connect provider carries between its steps (ADR 0044), kept in
// the browser rather than in one instance's memory: the callback may land on another instance.
// - The flow cookie: state, nonce, PKCE verifier and where to return, encrypted and authenticated
//   (JWE, dir + A256GCM, a key derived from SESSION_SECRET), for 10 minutes, sent back only to
//   /auth/oidc (its start and callback, both full-page navigations, never a page's data fetch).
//   SameSite=Lax: the provider sends the browser back with a cross-site top-level GET.
// - The code step: once the first factor was right (the password, or the provider with
//   OIDC_REQUIRE_2FA=on), a user with two-factor codes on is asked for a code on the login page;
//   a signed token (HS256, 5 minutes) bound to the user's id and the first factor's method says
//   so. The password itself is never carried to the second step. Its random id (`jti`) is marked
//   finished in the database when the sign-in completes: the cookie opens one session (ADR 0058).
//   Path=/: with JavaScript the login page sends its forms to `/login.data`, which a cookie of
//   Path=/login never reaches (ADR 0063).
// - The sign-in notice: after a sign-in with wrong two-factor codes to tell of (ADR 0058), the
//   next page shows them once: a signed token (HS256, 5 minutes) bound to the user's id.
import { createHash, randomBytes } from 'node:crypto';
import { parse, serialize } from 'cookie';
import { EncryptJWT, jwtDecrypt, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../config';

type CookieConfig = Pick<Config, 'secureCookies' | 'sessionSecret'>;

const FLOW_COOKIE = 'oidc_flow';
const FLOW_PATH = '/auth/oidc';
const FLOW_LIFETIME_SECONDS = 600;
const CODE_STEP_COOKIE = 'login_code_step';
const CODE_STEP_PATH = '/';
const CODE_STEP_LIFETIME_SECONDS = 300;

/** One key per use, derived from the session secret: a flow cookie is never a session token. */
function derivedKey(secret: Uint8Array, use: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`${use}\0`).update(secret).digest());
}

export interface SignInFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A local path to go to once signed in. */
  redirectTo: string;
}

export async function sealFlow(config: CookieConfig, flow: SignInFlow): Promise<string> {
  const value = await new EncryptJWT({ ...flow })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setExpirationTime(`${FLOW_LIFETIME_SECONDS}s`)
    .encrypt(derivedKey(config.sessionSecret, 'oidc-flow'));
  return serialize(FLOW_COOKIE, value, {
    httpOnly: true,
    path: FLOW_PATH,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: FLOW_LIFETIME_SECONDS,
  });
}

export function clearedFlowCookie(config: CookieConfig): string {
  return serialize(FLOW_COOKIE, '', {
    httpOnly: true,
    path: FLOW_PATH,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: 0,
  });
}

/** The flow the request's cookie carries; null when there is none, or it was altered or is too old. */
export async function openFlow(config: CookieConfig, cookieHeader: string | undefined): Promise<SignInFlow | null> {
  const value = readCookie(cookieHeader, FLOW_COOKIE);
  if (!value) return null;
  try {
    const { payload } = await jwtDecrypt(value, derivedKey(config.sessionSecret, 'oidc-flow'), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      requiredClaims: ['exp'],
    });
    const { state, nonce, codeVerifier, redirectTo } = payload;
    if (![state, nonce, codeVerifier, redirectTo].every((part) => typeof part === 'string')) return null;
    return { state, nonce, codeVerifier, redirectTo } as SignInFlow;
  } catch {
    return null;
  }
}

export interface CodeStep {
  /** Random, for marking the step finished (ADR 0058). */
  id: string;
  userId: string;
  redirectTo: string;
  /** How the first factor was given: the session made after the code records it. */
  method: 'password' | 'oidc';
}

export async function codeStepCookie(config: CookieConfig, step: Omit<CodeStep, 'id'>): Promise<string> {
  const value = await new SignJWT({ redirectTo: step.redirectTo, method: step.method })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(step.userId)
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuedAt()
    .setExpirationTime(`${CODE_STEP_LIFETIME_SECONDS}s`)
    .sign(derivedKey(config.sessionSecret, 'login-code-step'));
  return serialize(CODE_STEP_COOKIE, value, {
    httpOnly: true,
    path: CODE_STEP_PATH,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: CODE_STEP_LIFETIME_SECONDS,
  });
}

export function clearedCodeStepCookie(config: CookieConfig): string {
  return serialize(CODE_STEP_COOKIE, '', {
    httpOnly: true,
    path: CODE_STEP_PATH,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: 0,
  });
}

/** The code step the request's cookie carries; null when none, altered or expired. */
export async function openCodeStep(
  config: CookieConfig,
  cookieHeader: string | null | undefined,
): Promise<CodeStep | null> {
  const value = readCookie(cookieHeader ?? undefined, CODE_STEP_COOKIE);
  if (!value) return null;
  try {
    const { payload } = await jwtVerify(value, derivedKey(config.sessionSecret, 'login-code-step'), {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'exp', 'jti'],
    });
    const { sub, jti, redirectTo, method } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof redirectTo !== 'string') return null;
    if (method !== 'password' && method !== 'oidc') return null;
    return { id: jti, userId: sub, redirectTo, method };
  } catch {
    return null;
  }
}

const NOTICE_COOKIE = 'sign_in_notice';
const NOTICE_LIFETIME_SECONDS = 300;

/** What the page after a sign-in tells its user once: wrong two-factor codes tried (ADR 0058). */
export interface SignInNotice {
  userId: string;
  wrongCodes: number;
  /** When the last lock-out began (ISO 8601). */
  lastAt: string;
}

export async function signInNoticeCookie(config: CookieConfig, notice: SignInNotice): Promise<string> {
  const value = await new SignJWT({ wrongCodes: notice.wrongCodes, lastAt: notice.lastAt })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(notice.userId)
    .setIssuedAt()
    .setExpirationTime(`${NOTICE_LIFETIME_SECONDS}s`)
    .sign(derivedKey(config.sessionSecret, 'sign-in-notice'));
  return serialize(NOTICE_COOKIE, value, {
    httpOnly: true,
    path: '/',
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: NOTICE_LIFETIME_SECONDS,
  });
}

export function clearedSignInNoticeCookie(config: CookieConfig): string {
  return serialize(NOTICE_COOKIE, '', {
    httpOnly: true,
    path: '/',
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: 0,
  });
}

/**
 * The notice the request's cookie carries; null when none, altered or expired. `present`: a
 * cookie came (valid or not), to be cleared.
 */
export async function openSignInNotice(
  config: CookieConfig,
  cookieHeader: string | null | undefined,
): Promise<{ present: boolean; notice: SignInNotice | null }> {
  const value = readCookie(cookieHeader ?? undefined, NOTICE_COOKIE);
  if (!value) return { present: false, notice: null };
  try {
    const { payload } = await jwtVerify(value, derivedKey(config.sessionSecret, 'sign-in-notice'), {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'exp'],
    });
    const { sub, wrongCodes, lastAt } = payload;
    if (typeof sub !== 'string' || typeof wrongCodes !== 'number' || typeof lastAt !== 'string')
      return { present: true, notice: null };
    return { present: true, notice: { userId: sub, wrongCodes, lastAt } };
  } catch {
    return { present: true, notice: null };
  }
}

function readCookie(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  try {
    return parse(cookieHeader)[name] || null;
  } catch {
    return null;
  }
}
