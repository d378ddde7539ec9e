import bcrypt from 'bcryptjs';

/** bcrypt work factor: OWASP's minimum of 10; login latency is reported by `npm run bench`. */
export const BCRYPT_COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

// Compared against when the username is unknown, so that an unknown user and a wrong
// password take the same time and cannot be told apart (OWASP Authentication cheat sheet).
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password-just-for-timing', BCRYPT_COST);

export async function burnPasswordCheck(password: string): Promise<false> {
  await bcrypt.compare(password, DUMMY_HASH);
  return false;
}
