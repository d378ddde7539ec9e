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
    userId: { kind: 'm:1', entity: 'User', fieldName: 'user_id', mapToPk: true, deleteRule: 'cascade', updateRule: 'no action', index: 'sessions_user_id_index' },
    expiresAt: { type: 'Date' },
    createdAt: { type: 'Date' },
  },
});
