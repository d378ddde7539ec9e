import { Migration } from '@mikro-orm/migrations';

/** Resumable (tus) uploads under way (ADR 0019). */
export class Migration20261127000000ResumableUploads extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "resumable_uploads" ("id" varchar(255) not null, "user_id" varchar(255) not null, "file_id" varchar(255) not null, ' +
        '"stored_name" varchar(255) not null, "original_name" text not null, "mime_type" varchar(255) not null, "length" bigint not null, ' +
        '"received_bytes" bigint not null, "content_state" text null, "share_settings" text null, "created_at" timestamptz not null, ' +
        '"expires_at" timestamptz not null, "finished_at" timestamptz null, "lock_token" varchar(255) null, "lock_expires_at" timestamptz null, ' +
        '"release_requested" boolean not null default false, constraint "resumable_uploads_pkey" primary key ("id"), ' +
        'constraint "resumable_uploads_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade);',
    );
    this.addSql('create index "resumable_uploads_user_id_index" on "resumable_uploads" ("user_id");');
    this.addSql('create index "resumable_uploads_expires_at_index" on "resumable_uploads" ("expires_at");');
  }
}
