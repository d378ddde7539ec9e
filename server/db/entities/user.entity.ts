import { EntitySchema } from '@mikro-orm/core';

export interface User {
  id: string;
  /** As registered (case kept, shown to people). */
  username: string;
  /** Lower-cased username: uniqueness is case-insensitive. */
  usernameKey: string;
  passwordHash: string;
  createdAt: Date;
}

export const UserSchema = new EntitySchema<User>({
  name: 'User',
  tableName: 'users',
  properties: {
    id: { type: 'string', primary: true },
    username: { type: 'string' },
    usernameKey: { type: 'string', unique: true },
    passwordHash: { type: 'string' },
    createdAt: { type: 'Date' },
  },
});
