// A visitor's claim on a download that was counted (ADR 0056): an HS256 JWT naming the link, the
// ETag of the content that was counted and an id of that download of its own, kept in a cookie
// scoped to the link's content address. With it, a Range of that same content continues the
// download instead of counting a new one.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { hmacKey } from './tokens';

/** How long a counted download may be resumed: long enough for a large file on a slow line. */
export const DOWNLOAD_CLAIM_TTL_SECONDS = 6 * 3600;
/** Not the share grant's audience: neither token passes for the other. */
const AUDIENCE = 'download';

export async function signDownloadClaim(
  linkId: string,
  etag: string,
  secret: Uint8Array,
  nowSeconds: number,
): Promise<string> {
  return new SignJWT({ etag })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(AUDIENCE)
    .setSubject(linkId)
    .setJti(randomUUID())
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + DOWNLOAD_CLAIM_TTL_SECONDS)
    .sign(await hmacKey(secret));
}

/**
 * The ETag of the content whose download `token` claims on this link; null when it is no claim
 * of ours, for another link, or past its time. The caller compares it with the content's ETag now.
 */
export async function claimedEtag(
  token: string,
  linkId: string,
  secret: Uint8Array,
  nowSeconds: number,
): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(secret), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      subject: linkId,
      requiredClaims: ['exp', 'iat', 'jti'],
      currentDate: new Date(nowSeconds * 1000),
    });
    return typeof payload.etag === 'string' ? payload.etag : null;
  } catch {
    return null;
  }
}
