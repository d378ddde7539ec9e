import { Migration } from '@mikro-orm/migrations';

/**
 * The whole schema on PostgreSQL, as the SQLite migrations leave it (ADR 0011): users, their
 * files and sessions (which go with the user), the login-throttle counters and the health
 * probe row.
 */
export class Migration20261123100000Init extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "users" ("id" varchar(255) not null, "username" varchar(255) not null, "username_key" varchar(255) not null, ' +
        '"password_hash" varchar(255) not null, "created_at" timestamptz not null, constraint "users_pkey" primary key ("id"));',
    );
    this.addSql('alter table "users" add constraint "users_username_key_unique" unique ("username_key");');

    this.addSql(
      'create table "files" ("id" varchar(255) not null, "user_id" varchar(255) not null, "original_name" varchar(255) not null, ' +
        '"mime_type" varchar(255) not null, "size" bigint not null, "stored_name" varchar(255) not null, "created_at" timestamptz not null, ' +
        'constraint "files_pkey" primary key ("id"), ' +
        'constraint "files_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade);',
    );
    this.addSql('alter table "files" add constraint "files_stored_name_unique" unique ("stored_name");');
    this.addSql('create index "files_user_id_created_at_index" on "files" ("user_id", "created_at");');

    this.addSql(
      'create table "sessions" ("id" varchar(255) not null, "user_id" varchar(255) not null, "expires_at" timestamptz not null, ' +
        '"created_at" timestamptz not null, constraint "sessions_pkey" primary key ("id"), ' +
        'constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade);',
    );
    this.addSql('create index "sessions_user_id_index" on "sessions" ("user_id");');

    this.addSql(
      'create table "login_attempts" ("key" text not null, "failures" int not null, "pending" int not null, ' +
        '"window_ends_at" bigint not null, constraint "login_attempts_pkey" primary key ("key"));',
    );
    this.addSql(
      'create table "health_probe" ("id" int not null, "checked_at" bigint not null, constraint "health_probe_pkey" primary key ("id"));',
    );
  }
}
