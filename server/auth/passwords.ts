import bcrypt from 'bcryptjs';

/** bcrypt work factor: OWASP's minimum of 10; login latency is reported by `npm run bench`. */
const BCRYPT_COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

/** bcrypt reads only the first 72 bytes: no stored password is longer (the schemas refuse it). */
export const MAX_PASSWORD_BYTES = 72;

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  // A longer guess would match a 72-byte password by its first 72 bytes alone: it is wrong,
  // and is answered after the same bcrypt work, so its length tells nothing either.
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return burnPasswordCheck(password);
  return bcrypt.compare(password, hash);
}

// Compared against when the username is unknown, so that an unknown user and a wrong
// password take the same time and cannot be told apart (OWASP Authentication cheat sheet).
// A fixed hash of 32 random bytes nobody kept, at BCRYPT_COST: hashing one when the module loads
// cost every server start and every CLI command a tenth of a second or more.
export const DUMMY_HASH = '$2b$10$VOXljUlgURpnhugB22KF0et69vFeJeB3v2T822jBlxdMT2zlmv9ky';

export async function burnPasswordCheck(password: string): Promise<false> {
  await bcrypt.compare(password, DUMMY_HASH);
  return false;
}
