// Proof that a visitor was counted a download of a limited link (ADR 0014, "Resuming a
// download"): an HS256 JWT naming the file and the ETag of the content whose download began,
// kept in a cookie scoped to the file's raw link. With it the rest of that download can be
// fetched (a range further in) once the link is used up, and nothing else.
import { SignJWT, jwtVerify } from 'jose';

/**
 * How long an interrupted download can be finished: a day covers a laptop closed overnight, a
 * connection lost until the next morning or a browser's "Resume" clicked hours later, and it
 * keeps a used-up link from staying open for ever to whoever holds the cookie.
 */
export const RESUME_GRANT_TTL_SECONDS = 24 * 3600;
const AUDIENCE = 'resume';

export function signResumeGrant(fileId: string, etag: string, secret: Uint8Array, nowSeconds: number): Promise<string> {
  return new SignJWT({ etag })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(AUDIENCE)
    .setSubject(fileId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + RESUME_GRANT_TTL_SECONDS)
    .sign(secret);
}

/** Whether `token` is a live resume grant for this file and this content. */
export async function verifyResumeGrant(token: string, fileId: string, etag: string, secret: Uint8Array, nowSeconds: number): Promise<boolean> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      subject: fileId,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSeconds * 1000),
    });
    return payload.etag === etag;
  } catch {
    return false;
  }
}
