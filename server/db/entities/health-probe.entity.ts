import { EntitySchema } from '@mikro-orm/core';
import { WholeNumberType } from './whole-number.type';

/** A single row that /healthz rewrites: proof that the database still takes (and commits) writes. */
export interface HealthProbe {
  id: number;
  checkedAt: number;
}

export const HealthProbeSchema = new EntitySchema<HealthProbe>({
  name: 'HealthProbe',
  tableName: 'health_probe',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    checkedAt: { type: WholeNumberType },
  },
});
