import type { ServerResponse } from 'node:http';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Allows our own inline scripts (Remix's hydration data) and no one else's. */
      cspNonce: string;
    }
  }
}
import type { Config } from '../config';
import { pooledRandomBytes } from '../utilities/random-pool';

const NONCE_BYTES = 16;

function newNonce(): string {
  return pooledRandomBytes(NONCE_BYTES).toString('base64');
}

/**
 * Sets the headers every response carries (request-start.ts), which routes may tighten (the raw
 * file route does); returns the nonce its Content-Security-Policy allows.
 */
export function setSecurityHeaders(res: ServerResponse, config: Config): string {
  const nonce = newNonce();
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self' 'unsafe-inline'; " +
      `script-src 'self' 'nonce-${nonce}'; object-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'`,
  );
  if (config.secureCookies) res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  return nonce;
}
