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
  /** Whether a password login also needs a code from the user's authenticator (ADR 0043). */
  twoFactorEnabled?: boolean;
  /** The confirmed TOTP secret (base32); set only once a first code confirmed it. */
  totpSecret?: string | null;
  /** The secret of an enrolment begun and not yet confirmed. */
  totpPendingSecret?: string | null;
  /** The last time-step (30 s) whose code was accepted: no code is accepted twice. */
  totpLastStep?: number | null;
  /** JSON array of the SHA-256 (hex) of the recovery codes not yet used. */
  recoveryCodeHashes?: string | null;
  /** The subject (`sub`) of the OpenID Connect identity that signs in as this account (ADR 0044). */
  oidcSubject?: string | null;
  /** How My files shows the user's files: 'table' or 'gallery' (ADR 0046). */
  fileListView?: string;
  /** Wrong two-factor codes that locked the code step and that the owner has not been told of yet (ADR 0058). */
  unreportedWrongCodes?: number;
  /** When the last of those lock-outs began, in milliseconds since the epoch; null when none is untold. */
  wrongCodesLockedAt?: number | null;
  /** Whether the user administers the site: the console under /admin and its API (ADR 0083). */
  isAdmin?: boolean;
  /** When the user last signed in (any method); null: never since this was kept. */
  lastSignInAt?: Date | null;
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
    twoFactorEnabled: { type: 'boolean', default: false },
    totpSecret: { type: 'text', nullable: true },
    totpPendingSecret: { type: 'text', nullable: true },
    totpLastStep: { type: 'integer', nullable: true },
    recoveryCodeHashes: { type: 'text', nullable: true },
    oidcSubject: { type: 'string', nullable: true, unique: true },
    fileListView: { type: 'string', default: 'table' },
    unreportedWrongCodes: { type: 'integer', default: 0 },
    wrongCodesLockedAt: { type: WholeNumberType, nullable: true },
    isAdmin: { type: 'boolean', default: false },
    lastSignInAt: { type: 'Date', nullable: true },
  },
});
