// The hash an unknown username is checked against costs what a real account's check costs, so
// that the two cannot be told apart by the time they take.
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { burnPasswordCheck, DUMMY_HASH, hashPassword, verifyPassword } from '../../server/auth/passwords';

describe('password checks', () => {
  it('when an unknown username is checked, then its stand-in hash has the work factor of a real password hash', async () => {
    const real = await hashPassword('a perfectly fine password');
    expect(bcrypt.getRounds(DUMMY_HASH)).toBe(bcrypt.getRounds(real));
    expect(DUMMY_HASH.slice(0, 4)).toBe(real.slice(0, 4));
  });

  it('when a password is checked against the stand-in hash, then it is refused', async () => {
    expect(await burnPasswordCheck('not-a-real-password-just-for-timing')).toBe(false);
    expect(await burnPasswordCheck('')).toBe(false);
  });

  it('when a password is checked against its own hash, then it is taken, and another one is not', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });
});
