import { Migration20261122000000Init } from './Migration20261122000000Init';
import { Migration20261122010000LoginThrottle } from './Migration20261122010000LoginThrottle';
import { Migration20261123000000ThrottleAndHealth } from './Migration20261123000000ThrottleAndHealth';

/** Listed explicitly: migration folders cannot be globbed once bundled. */
export const migrationsList = [
  { name: 'Migration20261122000000Init', class: Migration20261122000000Init },
  { name: 'Migration20261122010000LoginThrottle', class: Migration20261122010000LoginThrottle },
  { name: 'Migration20261123000000ThrottleAndHealth', class: Migration20261123000000ThrottleAndHealth },
];
