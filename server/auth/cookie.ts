// The ONE place that issues and clears the session cookie (spec: Authentication §6,
// CONTRACT §3). The page login and the API login both call it.
import { parse, serialize } from 'cookie';
import type { Config } from '../config';
import { SESSION_COOKIE_NAME } from './session-constants';

type CookieConfig = Pick<Config, 'secureCookies'>;

export function sessionCookie(config: CookieConfig, token: string, maxAgeSeconds: number): string {
  return serialize(SESSION_COOKIE_NAME, token, {
    httpOnly: true,
    path: '/',
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

export function clearedSessionCookie(config: CookieConfig): string {
  return sessionCookie(config, '', 0);
}

export function readSessionToken(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  try {
    return parse(cookieHeader)[SESSION_COOKIE_NAME] || null;
  } catch {
    return null;
  }
}
