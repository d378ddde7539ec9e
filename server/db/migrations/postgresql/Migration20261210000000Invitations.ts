import { Migration } from '@mikro-orm/migrations';

/** Invitations to make an account, `/invite/<code>` (ADR 0086). */
export class Migration20261210000000Invitations extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "invitations" ("id" varchar(255) not null, "code_hash" varchar(255) not null, ' +
        '"created_by" varchar(255) null, "created_at" timestamptz not null, "expires_at" timestamptz not null, ' +
        '"max_uses" int not null, "uses" int not null default 0, "has_own_quota" boolean not null default false, ' +
        '"quota_bytes" bigint null, "is_admin" boolean not null default false, "revoked_at" timestamptz null, ' +
        'constraint "invitations_pkey" primary key ("id"));',
    );
    this.addSql('alter table "invitations" add constraint "invitations_code_hash_unique" unique ("code_hash");');
  }
}
