import { EntitySchema } from '@mikro-orm/core';

/**
 * A personal access token (ADR 0015): `Authorization: Bearer fsk_…` on the file routes of the
 * API. Only the SHA-256 of the token is kept; `start` (its first characters) lets people tell
 * their tokens apart.
 */
export interface ApiToken {
  id: string;
  userId: string;
  name: string;
  /** SHA-256 of the whole token, hex. */
  tokenHash: string;
  /** The token's first characters, e.g. `fsk_Ab3dE9`. */
  start: string;
  createdAt: Date;
  /** Updated at most once a minute. */
  lastUsedAt: Date | null;
  expiresAt: Date | null;
}

export const ApiTokenSchema = new EntitySchema<ApiToken>({
  name: 'ApiToken',
  tableName: 'api_tokens',
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'api_tokens_user_id_index',
    },
    name: { type: 'string' },
    tokenHash: { type: 'string', unique: true },
    start: { type: 'string' },
    createdAt: { type: 'Date' },
    lastUsedAt: { type: 'Date', nullable: true },
    expiresAt: { type: 'Date', nullable: true },
  },
});
