import { EntitySchema } from '@mikro-orm/core';

/** A login. The token carries its id (`sid`); logout deletes the row, revoking the token server-side. */
export interface Session {
  id: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
}

export const SessionSchema = new EntitySchema<Session>({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: { type: 'string', primary: true },
    userId: { type: 'string', index: true },
    expiresAt: { type: 'Date' },
    createdAt: { type: 'Date' },
  },
});
