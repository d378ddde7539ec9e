import { Migration } from '@mikro-orm/migrations';

/** Personal access tokens (ADR 0015): only their SHA-256 is kept; they go with their user. */
export class Migration20261124100000ApiTokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "api_tokens" ("id" varchar(255) not null, "user_id" varchar(255) not null, "name" varchar(255) not null, ' +
        '"token_hash" varchar(255) not null, "start" varchar(255) not null, "created_at" timestamptz not null, ' +
        '"last_used_at" timestamptz null, "expires_at" timestamptz null, constraint "api_tokens_pkey" primary key ("id"), ' +
        'constraint "api_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade);',
    );
    this.addSql('create index "api_tokens_user_id_index" on "api_tokens" ("user_id");');
    this.addSql('alter table "api_tokens" add constraint "api_tokens_token_hash_unique" unique ("token_hash");');
  }
}
