// The ONE place that issues and clears the session cookie (and the share-password, collection-grant
// and download-claim cookies) (ADR 0002).
// The page login and the API login both call it.
import { parse, serialize } from 'cookie';
import type { Config } from '../config';
import { grantIssuedAt } from './share-grant';
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
 * How many collections' grants a browser keeps at once (ADR 0067): each goes with every request
 * to the site, so unlocking one more drops the grant given longest ago.
 */
const MAX_COLLECTION_GRANTS = 10;

/** A collection's share-password proof as a request carries it (the cookie `collection_<id>`). */
export interface CollectionGrant {
  collectionId: string;
  token: string;
}

/**
 * A collection's share-password proof, sent back to the whole site (`Path=/`): it opens the
 * collection's page and archive, and the pages, thumbnails and raw links of its files, which are
 * under `/f/` (ADR 0067). With it come the cookies that clear the grants given longest ago, so
 * that the browser keeps at most MAX_COLLECTION_GRANTS; `cookieHeader` is the unlocking request's.
 */
export function collectionGrantCookies(
  config: CookieConfig,
  collectionId: string,
  token: string,
  maxAgeSeconds: number,
  cookieHeader: string | undefined,
): string[] {
  const newestFirst = collectionGrantsIn(cookieHeader)
    .filter((grant) => grant.collectionId !== collectionId)
    .map((grant) => ({ ...grant, issuedAt: grantIssuedAt(grant.token) ?? 0 }))
    .sort((a, b) => b.issuedAt - a.issuedAt);
  const dropped = newestFirst.slice(MAX_COLLECTION_GRANTS - 1);
  return [
    collectionGrantCookie(config, collectionId, token, maxAgeSeconds),
    ...dropped.map((grant) => collectionGrantCookie(config, grant.collectionId, '', 0)),
  ];
}

function collectionGrantCookie(config: CookieConfig, collectionId: string, token: string, maxAgeSeconds: number) {
  return serialize(`${COLLECTION_GRANT_PREFIX}${collectionId}`, token, {
    httpOnly: true,
    path: '/',
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: maxAgeSeconds,
  });
}

const COLLECTION_GRANT_PREFIX = 'collection_';
/** A link id as fileIdSchema has it: a cookie of another shape is not a grant of ours. */
const LINK_ID = /^[A-Za-z0-9_-]{22}$/;

/** The grant of one collection that a request carries, if any. */
export function readCollectionGrant(cookieHeader: string | undefined, collectionId: string): string | null {
  return readCookie(cookieHeader, `${COLLECTION_GRANT_PREFIX}${collectionId}`);
}

/**
 * The collection grants a request carries, at most MAX_COLLECTION_GRANTS of them: a request
 * stuffed with made-up ones costs no more than a browser's own (each is looked up).
 */
export function readCollectionGrants(cookieHeader: string | undefined): CollectionGrant[] {
  return collectionGrantsIn(cookieHeader).slice(0, MAX_COLLECTION_GRANTS);
}

function collectionGrantsIn(cookieHeader: string | undefined): CollectionGrant[] {
  if (!cookieHeader) return [];
  let cookies: Record<string, string | undefined>;
  try {
    cookies = parse(cookieHeader);
  } catch {
    return [];
  }
  const grants: CollectionGrant[] = [];
  for (const [name, token] of Object.entries(cookies)) {
    if (!name.startsWith(COLLECTION_GRANT_PREFIX) || !token) continue;
    const collectionId = name.slice(COLLECTION_GRANT_PREFIX.length);
    if (LINK_ID.test(collectionId)) grants.push({ collectionId, token });
  }
  return grants;
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
