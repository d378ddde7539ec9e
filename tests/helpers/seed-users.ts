// The users test apps start with, made as registerUser makes them (the same checks, the same
// row) but with a bcrypt hash of the lowest work factor, 4 instead of the service's 10. A hash
// carries its work factor, so these users log in through the same verifyPassword, in a
// millisecond instead of a tenth of a second: hashing and checking these passwords was close to
// half of the test run's CPU. Users made through the API, the pages or the CLI keep the
// service's work factor, and tests/unit/passwords.test.ts holds it.
import { randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { AuthUser } from '../../server/context';
import { UserSchema } from '../../server/db/entities/user.entity';
import type { Orm } from '../../server/db/orm';
import { registerUserSchema } from '../../server/schemas';

const SEEDED_COST = 4;
/** One hash per password for the whole worker: the tests use a handful of passwords. */
const hashes = new Map<string, string>();

function seededHash(password: string): string {
  let hash = hashes.get(password);
  if (!hash) {
    hash = bcrypt.hashSync(password, SEEDED_COST);
    hashes.set(password, hash);
  }
  return hash;
}

/** Adds a user with `password`, made at `now`; a name taken or a password the service would refuse throws. */
export async function seedUser(orm: Orm, username: string, password: string, now: number): Promise<AuthUser> {
  const { username: name, password: checked } = registerUserSchema.parse({ username, password });
  const em = orm.em.fork();
  const user = em.create(UserSchema, {
    id: randomUUID(),
    username: name,
    usernameKey: name.toLowerCase(),
    passwordHash: seededHash(checked),
    createdAt: new Date(now),
    disabledAt: null,
    hasOwnQuota: false,
    quotaBytes: null,
  });
  await em.flush();
  return { id: user.id, username: user.username };
}
