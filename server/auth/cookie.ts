// The ONE place that issues and clears the session cookie (and the share links' cookies) (ADR 0002).
// The page login and the API login both call it.
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

/** A file's share-password proof: sent back only to that file's pages (`/f/<id>` and below). */
export function shareGrantCookie(config: CookieConfig, fileId: string, token: string, maxAgeSeconds: number): string {
  return serialize(shareGrantCookieName(fileId), token, {
    httpOnly: true,
    path: `/f/${fileId}`,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

/** File ids are URL-safe letters, digits, `_` and `-`: valid in a cookie name as they are. */
function shareGrantCookieName(fileId: string): string {
  return `share_${fileId}`;
}

export function readShareGrant(cookieHeader: string | undefined, fileId: string): string | null {
  return readShareCookies(cookieHeader, fileId).grant;
}

/**
 * A file's resume grant (ADR 0014, "Resuming a download"): sent back only to its raw link, the
 * one address that serves the rest of a download.
 */
export function resumeGrantCookie(config: CookieConfig, fileId: string, token: string, maxAgeSeconds: number): string {
  return serialize(resumeGrantCookieName(fileId), token, {
    httpOnly: true,
    path: `/f/${fileId}/raw`,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

function resumeGrantCookieName(fileId: string): string {
  return `resume_${fileId}`;
}

const NO_SHARE_COOKIES = Object.freeze({ grant: null, resume: null });

/** A file's password proof and resume grant, from one reading of the Cookie header (the raw link reads it on every request). */
export function readShareCookies(cookieHeader: string | undefined, fileId: string): { grant: string | null; resume: string | null } {
  if (!cookieHeader) return NO_SHARE_COOKIES;
  try {
    const cookies = parse(cookieHeader);
    return { grant: cookies[shareGrantCookieName(fileId)] || null, resume: cookies[resumeGrantCookieName(fileId)] || null };
  } catch {
    return NO_SHARE_COOKIES;
  }
}

export function readSessionToken(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  try {
    return parse(cookieHeader)[SESSION_COOKIE_NAME] || null;
  } catch {
    return null;
  }
}
