// Session tokens as an attacker or a clock would shape them, signed with jose directly.
import { SignJWT, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { TEST_SECRET } from './app';

export const now = () => Math.floor(Date.now() / 1000);

/** The value of `token=…` in a Cookie header string. */
export function tokenOf(cookie: string): string {
  const match = /(?:^|;\s*)token=([^;]*)/.exec(cookie);
  if (!match) throw new Error(`no token in ${cookie}`);
  return match[1];
}

export function claimsOf(token: string): JWTPayload & { sid?: string } {
  return decodeJwt(token) as JWTPayload & { sid?: string };
}

export function headerOf(token: string) {
  return decodeProtectedHeader(token);
}

/**
 * A JWT with exactly these claims (none are added), signed with `secret` (TEST_SECRET by
 * default) and `alg` (HS256 by default).
 */
export async function signToken(
  claims: Record<string, unknown>,
  options: { secret?: string; alg?: 'HS256' | 'HS384' | 'HS512' } = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(options.secret ?? TEST_SECRET));
}

/** An unsigned token: `alg: none` and an empty signature. */
export function unsignedToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** The same token with one character of its signature changed. */
export function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.');
  const first = signature[0] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${first}${signature.slice(1)}`;
}

/** The same signature over a payload whose `sub` was swapped. */
export function tamperPayload(token: string, changes: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), ...changes };
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

export interface ParsedSetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flag attributes map to ''. */
  attributes: Record<string, string>;
}

function parseSetCookie(header: string): ParsedSetCookie {
  const [pair, ...rest] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const attributes: Record<string, string> = {};
  for (const attribute of rest) {
    const i = attribute.indexOf('=');
    if (i === -1) attributes[attribute.toLowerCase()] = '';
    else attributes[attribute.slice(0, i).toLowerCase()] = attribute.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

/** Every `token` cookie a response sets. */
export function sessionCookies(res: Response): ParsedSetCookie[] {
  return res.headers
    .getSetCookie()
    .map(parseSetCookie)
    .filter((cookie) => cookie.name === 'token');
}
