// Proof that a visitor gave a file's share password (ADR 0014): an HS256 JWT for that one file,
// kept in a cookie scoped to the file's address. It names a fingerprint of the password hash,
// so a new password (or none, then a new one) makes every earlier proof worthless.
import { createHash } from 'node:crypto';
import { decodeJwt, SignJWT, jwtVerify } from 'jose';

/** How long a right password opens the file in that browser. */
export const SHARE_GRANT_TTL_SECONDS = 12 * 3600;
const AUDIENCE = 'share';

/** A short fingerprint of the password hash: reveals nothing, changes with the password. */
function passwordVersion(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 16);
}

export function signShareGrant(
  fileId: string,
  passwordHash: string,
  secret: Uint8Array,
  nowSeconds: number,
): Promise<string> {
  return new SignJWT({ pwv: passwordVersion(passwordHash) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(AUDIENCE)
    .setSubject(fileId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + SHARE_GRANT_TTL_SECONDS)
    .sign(secret);
}

/** Whether `token` proves the current password of this file. */
export async function verifyShareGrant(
  token: string,
  fileId: string,
  passwordHash: string,
  secret: Uint8Array,
  nowSeconds: number,
): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      subject: fileId,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSeconds * 1000),
    });
    return payload.pwv === passwordVersion(passwordHash);
  } catch {
    return false;
  }
}

/**
 * When a grant says it was given, read without checking it: only to choose which of a browser's
 * own collection grants to drop (server/auth/cookie.ts), never to let anyone in. Null when unreadable.
 */
export function grantIssuedAt(token: string): number | null {
  try {
    const { iat } = decodeJwt(token);
    return typeof iat === 'number' ? iat : null;
  } catch {
    return null;
  }
}
