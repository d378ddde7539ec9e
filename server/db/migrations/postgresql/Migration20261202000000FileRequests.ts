import { Migration } from '@mikro-orm/migrations';

/**
 * File requests (ADR 0048): links through which guests send files into a user's space, the
 * uploads under way into them, and each received file's request, guest name and note.
 */
export class Migration20261202000000FileRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "file_requests" ("id" varchar(255) not null, "user_id" varchar(255) not null, "title" text not null, "message" text not null, "created_at" timestamptz not null, "expires_at" timestamptz null, "max_files" int null, "max_bytes" bigint null, "password_hash" varchar(255) null, "require_name" boolean not null default false, "closed_at" timestamptz null, "seen_at" timestamptz null, constraint "file_requests_pkey" primary key ("id"));',
    );
    this.addSql('create index "file_requests_user_id_created_at_index" on "file_requests" ("user_id", "created_at");');
    this.addSql(
      'create table "file_request_uploads" ("id" varchar(255) not null, "request_id" varchar(255) not null, "file_id" varchar(255) not null, "bytes" bigint not null, "updated_at" timestamptz not null, constraint "file_request_uploads_pkey" primary key ("id"));',
    );
    this.addSql('create index "file_request_uploads_request_id_index" on "file_request_uploads" ("request_id");');
    this.addSql(
      'alter table "file_requests" add constraint "file_requests_user_id_foreign" foreign key ("user_id") references "users" ("id") on update no action on delete cascade;',
    );
    this.addSql(
      'alter table "file_request_uploads" add constraint "file_request_uploads_request_id_foreign" foreign key ("request_id") references "file_requests" ("id") on update no action on delete cascade;',
    );
    this.addSql(
      'alter table "files" add column "request_id" varchar(255) null, add column "guest_name" text null, add column "guest_note" text null;',
    );
    this.addSql('create index "files_request_id_index" on "files" ("request_id");');
  }
}
