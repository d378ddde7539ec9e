import { EntitySchema } from '@mikro-orm/core';

/** A login. The token carries its id (`sid`); logout deletes the row, revoking the token server-side. */
export interface Session {
  id: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  /** The browser's User-Agent at login (cut to 512 characters), shown on the settings page. */
  userAgent: string | null;
  /** The address of the last request seen, written with `lastSeenAt`. */
  address: string | null;
  /** Updated at most once a minute (each request would be a write otherwise). */
  lastSeenAt: Date | null;
  /** How the user signed in: 'password' or 'oidc' (ADR 0044); null for sessions older than the column. */
  signInMethod?: string | null;
}

export const SessionSchema = new EntitySchema<Session>({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'sessions_user_id_index',
    },
    expiresAt: { type: 'Date' },
    createdAt: { type: 'Date' },
    userAgent: { type: 'text', nullable: true },
    address: { type: 'string', nullable: true },
    lastSeenAt: { type: 'Date', nullable: true },
    signInMethod: { type: 'string', nullable: true },
  },
});
