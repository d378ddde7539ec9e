import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * An invitation to make an account (ADR 0086): `/invite/<code>`. Only the SHA-256 of the code is
 * kept, as with API tokens; the link is shown once, when it is made.
 */
export interface Invitation {
  id: string;
  /** SHA-256 of the code, hex. */
  codeHash: string;
  /** The admin who made it; null: the command line. */
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** How many accounts it may make. */
  maxUses: number;
  uses: number;
  /** Whether `quotaBytes` applies to the accounts it makes instead of DEFAULT_QUOTA_BYTES. */
  hasOwnQuota: boolean;
  /** With `hasOwnQuota`: the accounts' quota in bytes; null: unlimited. */
  quotaBytes: number | null;
  /** Whether the accounts it makes are admins. */
  isAdmin: boolean;
  revokedAt: Date | null;
}

export const InvitationSchema = new EntitySchema<Invitation>({
  name: 'Invitation',
  tableName: 'invitations',
  properties: {
    id: { type: 'string', primary: true },
    codeHash: { type: 'string', unique: true },
    createdBy: { type: 'string', nullable: true },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
    maxUses: { type: 'integer' },
    uses: { type: 'integer', default: 0 },
    hasOwnQuota: { type: 'boolean', default: false },
    quotaBytes: { type: WholeNumberType, nullable: true },
    isAdmin: { type: 'boolean', default: false },
    revokedAt: { type: 'Date', nullable: true },
  },
});
