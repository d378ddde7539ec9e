import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * Bytes an upload in progress holds against its user's quota (ADR 0018). Grown as the bytes
 * arrive, removed when the upload ends either way; one left by a crashed instance goes stale
 * (`updatedAt` stops moving) and is swept.
 */
export interface UploadReservation {
  id: string;
  userId: string;
  bytes: number;
  updatedAt: Date;
}

export const UploadReservationSchema = new EntitySchema<UploadReservation>({
  name: 'UploadReservation',
  tableName: 'upload_reservations',
  properties: {
    id: { type: 'string', primary: true },
    userId: { kind: 'm:1', entity: 'User', fieldName: 'user_id', mapToPk: true, deleteRule: 'cascade', updateRule: 'no action', index: 'upload_reservations_user_id_index' },
    bytes: { type: WholeNumberType },
    updatedAt: { type: 'Date' },
  },
});
