import { Migration } from '@mikro-orm/migrations';

/** Disabled users, per-user quotas and the bytes uploads in progress hold (ADR 0018). */
export class Migration20261126000000AccountsAndQuotas extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "users" add column "disabled_at" timestamptz null, add column "has_own_quota" boolean not null default false, ' +
        'add column "quota_bytes" bigint null;',
    );
    this.addSql(
      'create table "upload_reservations" ("id" varchar(255) not null, "user_id" varchar(255) not null, "bytes" bigint not null, ' +
        '"updated_at" timestamptz not null, constraint "upload_reservations_pkey" primary key ("id"), ' +
        'constraint "upload_reservations_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade);',
    );
    this.addSql('create index "upload_reservations_user_id_index" on "upload_reservations" ("user_id");');
  }
}
