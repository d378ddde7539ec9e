import { Migration } from '@mikro-orm/migrations';

/** Share controls (ADR 0014): expiry, a download limit and its count, a share password. */
export class Migration20261124000000ShareControls extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "files" add column "expires_at" timestamptz null, add column "max_downloads" int null, ' +
        'add column "downloads" int not null default 0, add column "password_hash" varchar(255) null;',
    );
    this.addSql('create index "files_expires_at_index" on "files" ("expires_at");');
    this.addSql('create index "files_max_downloads_index" on "files" ("max_downloads");');
  }
}
