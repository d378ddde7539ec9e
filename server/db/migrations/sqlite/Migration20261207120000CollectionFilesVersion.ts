import { Migration } from '@mikro-orm/migrations';

/**
 * A collection's files version, bumped with every change of what its archive holds, and its files
 * read in order from an index: its archive's plan is kept by the one and laid out from the other (ADR 0055).
 */
export class Migration20261207120000CollectionFilesVersion extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table `collections` add column `files_version` integer not null default 0;');
    this.addSql(
      'create index `collection_files_collection_id_position_index` on `collection_files` (`collection_id`, `position`);',
    );
  }
}
