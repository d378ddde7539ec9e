// The ONE place that issues and clears the session cookie (and the share-password and download-claim
// cookies) (ADR 0002).
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

/**
 * A collection's share-password proof: sent back only to its page and its archive (`/c/<id>` and
 * below). The same name as a file's: ids are drawn from one space, and the path keeps them apart.
 */
export function collectionGrantCookie(
  config: CookieConfig,
  collectionId: string,
  token: string,
  maxAgeSeconds: number,
): string {
  return serialize(shareGrantCookieName(collectionId), token, {
    httpOnly: true,
    path: `/c/${collectionId}`,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

/** File ids are URL-safe letters, digits, `_` and `-`: valid in a cookie name as they are. */
function shareGrantCookieName(fileId: string): string {
  return `share_${fileId}`;
}

/**
 * The claim on a counted download of a file (ADR 0056): sent back only to its raw link
 * (`/f/<id>/raw`), where a Range continues that download.
 */
export function fileClaimCookie(config: CookieConfig, fileId: string, token: string, maxAgeSeconds: number): string {
  return downloadClaimCookie(config, fileId, `/f/${fileId}/raw`, token, maxAgeSeconds);
}

/** The claim on a counted "Download all" of a collection: sent back only to its archive (`/c/<id>/archive`). */
export function collectionClaimCookie(
  config: CookieConfig,
  collectionId: string,
  token: string,
  maxAgeSeconds: number,
): string {
  return downloadClaimCookie(config, collectionId, `/c/${collectionId}/archive`, token, maxAgeSeconds);
}

function downloadClaimCookie(
  config: CookieConfig,
  linkId: string,
  path: string,
  token: string,
  maxAgeSeconds: number,
): string {
  return serialize(downloadClaimCookieName(linkId), token, {
    httpOnly: true,
    path,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

function downloadClaimCookieName(linkId: string): string {
  return `claim_${linkId}`;
}

/** The claim cookie a request to a link's content carries, if any. */
export function readDownloadClaim(cookieHeader: string | undefined, linkId: string): string | null {
  return readCookie(cookieHeader, downloadClaimCookieName(linkId));
}

export function readShareGrant(cookieHeader: string | undefined, fileId: string): string | null {
  return readCookie(cookieHeader, shareGrantCookieName(fileId));
}

export function readSessionToken(cookieHeader: string | undefined): string | null {
  return readCookie(cookieHeader, SESSION_COOKIE_NAME);
}

function readCookie(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  try {
    return parse(cookieHeader)[name] || null;
  } catch {
    return null;
  }
}
