import { Migration } from '@mikro-orm/migrations';

/** Collections: several files behind one link, and each file's CRC-32 for their archives (ADR 0036). */
export class Migration20261129000000Collections extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "collections" ("id" varchar(255) not null, "user_id" varchar(255) not null, "title" text not null, ' +
        '"created_at" timestamptz not null, "expires_at" timestamptz null, "max_downloads" int null, "downloads" int not null default 0, ' +
        '"password_hash" varchar(255) null, constraint "collections_pkey" primary key ("id"));',
    );
    this.addSql('create index "collections_expires_at_index" on "collections" ("expires_at");');
    this.addSql('create index "collections_user_id_created_at_index" on "collections" ("user_id", "created_at");');
    this.addSql(
      'create table "collection_files" ("collection_id" varchar(255) not null, "file_id" varchar(255) not null, "position" int not null, ' +
        '"path" text not null, constraint "collection_files_pkey" primary key ("collection_id", "file_id"));',
    );
    this.addSql('create index "collection_files_file_id_index" on "collection_files" ("file_id");');
    this.addSql(
      'alter table "collections" add constraint "collections_user_id_foreign" foreign key ("user_id") references "users" ("id") on update no action on delete cascade;',
    );
    this.addSql(
      'alter table "collection_files" add constraint "collection_files_collection_id_foreign" foreign key ("collection_id") references "collections" ("id") on update no action on delete cascade;',
    );
    this.addSql(
      'alter table "collection_files" add constraint "collection_files_file_id_foreign" foreign key ("file_id") references "files" ("id") on update no action on delete cascade;',
    );
    this.addSql('alter table "files" add column "crc32" bigint null;');
  }
}
