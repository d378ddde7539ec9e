import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { hashPassword } from '../auth/passwords';
import type { AuthUser, ServiceContext } from '../context';
import { UserSchema } from '../db/entities/user.entity';
import { AppError } from '../errors';
import { firstIssue, registerUserSchema } from '../schemas';

const TAKEN = 'Username is already taken';

/** Creates a user (CONTRACT §2): usernames are unique regardless of case. */
export async function registerUser(ctx: ServiceContext, input: unknown): Promise<AuthUser> {
  const parsed = registerUserSchema.safeParse(input);
  if (!parsed.success) throw new AppError('BAD_REQUEST', firstIssue(parsed.error));
  const { username, password } = parsed.data;
  const usernameKey = username.toLowerCase();

  if (await ctx.em.count(UserSchema, { usernameKey })) throw new AppError('CONFLICT', TAKEN);
  const user = ctx.em.create(UserSchema, {
    id: randomUUID(),
    username,
    usernameKey,
    passwordHash: await hashPassword(password),
    createdAt: new Date(ctx.clock.now()),
  });
  try {
    await ctx.em.flush();
  } catch (error) {
    // Another registration of the same name won the race between the check and the insert.
    if (error instanceof UniqueConstraintViolationException) throw new AppError('CONFLICT', TAKEN);
    throw error;
  }
  return { id: user.id, username: user.username };
}

export async function findUserByUsername(ctx: ServiceContext, username: string) {
  return ctx.em.findOne(UserSchema, { usernameKey: username.toLowerCase() });
}
