// Session tokens: HS256 JWTs (ADR 0002). Only HS256 is accepted, and sub, iat and exp
// are required: jose would otherwise accept any HMAC algorithm and tokens without exp.
import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/**
 * The secret as a WebCrypto key, imported once: given the raw bytes, jose imports them again
 * for every token, which doubled the cost of checking one (about 0.1 ms, on every request
 * that carries a cookie).
 */
const hmacKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();
export function hmacKey(secret: Uint8Array): Promise<webcrypto.CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    hmacKeys.set(secret, key);
  }
  return key;
}

export interface SessionClaims {
  /** User id. */
  sub: string;
  /** Session id: the row that logout deletes, revoking the token server-side. */
  sid: string;
  iat: number;
  exp: number;
}

export async function signSessionToken(
  claims: { sub: string; sid: string },
  ttlSeconds: number,
  secret: Uint8Array,
  now = Math.floor(Date.now() / 1000),
): Promise<string> {
  return new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(await hmacKey(secret));
}

/**
 * Tokens whose signature was checked, per secret, with their claims: a browser sends the same
 * cookie with every request, and checking an HMAC through WebCrypto is a job on libuv's thread
 * pool (about 0.06 ms of the main thread's time, on every request with a cookie). A signature
 * that was right stays right for that secret; what can change is checked on every use all the
 * same: the expiry here, the session row (logout, a disabled account) by the caller.
 */
const verifiedTokens = new WeakMap<Uint8Array, Map<string, SessionClaims>>();
/** Enough for every browser of a busy instance; the oldest are forgotten first. */
const MAX_VERIFIED_TOKENS = 1000;

/** The claims of a valid token; null for anything else (tampered, expired, other algorithm…). */
export async function verifySessionToken(token: string, secret: Uint8Array): Promise<SessionClaims | null> {
  let verified = verifiedTokens.get(secret);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(secret, verified);
  }
  const known = verified.get(token);
  // jose's own test, to the second: a token is expired from its `exp` on.
  if (known) return known.exp > Math.floor(Date.now() / 1000) ? known : null;
  const claims = await verifySignedToken(token, secret);
  if (claims) {
    if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
    verified.set(token, claims);
  }
  return claims;
}

async function verifySignedToken(token: string, secret: Uint8Array): Promise<SessionClaims | null> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(secret), {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'iat', 'exp'],
    });
    const { sub, sid, iat, exp } = payload;
    if (typeof sub !== 'string' || typeof sid !== 'string' || iat === undefined || exp === undefined) return null;
    return { sub, sid, iat, exp };
  } catch {
    return null;
  }
}
