import { Migration20261122000000Init } from './Migration20261122000000Init';

/** Listed explicitly: migration folders cannot be globbed once bundled. */
export const migrationsList = [{ name: 'Migration20261122000000Init', class: Migration20261122000000Init }];
