import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

export interface User {
  id: string;
  /** As registered (case kept, shown to people). */
  username: string;
  /** Lower-cased username: uniqueness is case-insensitive. */
  usernameKey: string;
  passwordHash: string;
  createdAt: Date;
  /** Set while an admin has disabled the account: no login, no session, no token, no share link. */
  disabledAt: Date | null;
  /** Whether `quotaBytes` applies instead of DEFAULT_QUOTA_BYTES (an admin set one). */
  hasOwnQuota: boolean;
  /** The user's own quota in bytes; null with `hasOwnQuota`: unlimited. */
  quotaBytes: number | null;
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
    disabledAt: { type: 'Date', nullable: true },
    hasOwnQuota: { type: 'boolean', default: false },
    quotaBytes: { type: WholeNumberType, nullable: true },
  },
});
