import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * One login-throttle counter (ADR 0009): failed logins under one key (a username and address
 * pair, an address, or a username) inside a fixed window. Written only by single-statement
 * upserts in services/login-throttle.ts, so parallel failures each count.
 */
export interface LoginAttempt {
  key: string;
  failures: number;
  /** Attempts whose password is being checked right now. */
  pending: number;
  /** End of the counting window, in milliseconds since the epoch. */
  windowEndsAt: number;
}

export const LoginAttemptSchema = new EntitySchema<LoginAttempt>({
  name: 'LoginAttempt',
  tableName: 'login_attempts',
  properties: {
    // text: the key holds a username as typed at login (up to 256 characters) and an address.
    key: { type: 'string', primary: true, columnType: 'text' },
    failures: { type: 'integer' },
    pending: { type: 'integer' },
    windowEndsAt: { type: WholeNumberType },
  },
});
