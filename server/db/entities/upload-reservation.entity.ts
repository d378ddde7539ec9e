import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/**
 * A multipart upload being received (ADR 0029): its sign of life for the storage sweep, and the
 * bytes it holds against its user's quota (ADR 0018). The receiving process refreshes
 * `updatedAt` at least once a minute while the upload lasts and removes the row when the
 * upload ends either way; a row that stops moving was left by a receiver that is gone (crashed,
 * killed), and both the row and the content it names are swept.
 */
export interface UploadReservation {
  id: string;
  userId: string;
  /** The content's key in the store: the sweep keeps its unfinished content while the row is fresh. */
  storedName: string | null;
  /** Held against the quota: the bytes received so far, plus at most one step when room is ample; 0 without a quota. */
  bytes: number;
  updatedAt: Date;
}

export const UploadReservationSchema = new EntitySchema<UploadReservation>({
  name: 'UploadReservation',
  tableName: 'upload_reservations',
  properties: {
    id: { type: 'string', primary: true },
    userId: {
      kind: 'm:1',
      entity: 'User',
      fieldName: 'user_id',
      mapToPk: true,
      deleteRule: 'cascade',
      updateRule: 'no action',
      index: 'upload_reservations_user_id_index',
    },
    // Null only in rows written before rows named their content (they keep nothing from the sweep).
    storedName: { type: 'string', nullable: true },
    bytes: { type: WholeNumberType },
    updatedAt: { type: 'Date' },
  },
});
