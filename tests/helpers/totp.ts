// Two-factor codes as an authenticator app computes them (RFC 6238: HMAC-SHA-1, 30-second
// steps, 6 digits), written out here so that the tests do not take the server's library on trust.
import { createHmac } from 'node:crypto';

const TOTP_STEP_MS = 30_000;

/** RFC 4648 base32 (no padding) to bytes. */
function base32Bytes(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
}

/** The 6-digit code of a base32 `secret` at `atMs` (milliseconds since the epoch). */
export function totpCode(secret: string, atMs: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / TOTP_STEP_MS)));
  const mac = createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** A clock time in the middle of the next step: a request's few milliseconds never cross into another. */
export function middleOfNextStep(nowMs: number): number {
  return nowMs - (nowMs % TOTP_STEP_MS) + TOTP_STEP_MS + TOTP_STEP_MS / 2;
}
