import { Migration } from '@mikro-orm/migrations';

/** Personal access tokens (ADR 0015): only their SHA-256 is kept; they go with their user. */
export class Migration20261124100000ApiTokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table `api_tokens` (`id` text not null, `user_id` text not null, `name` text not null, `token_hash` text not null, ' +
        '`start` text not null, `created_at` datetime not null, `last_used_at` datetime null, `expires_at` datetime null, ' +
        'primary key (`id`), foreign key (`user_id`) references `users` (`id`) on delete cascade);',
    );
    this.addSql('create index `api_tokens_user_id_index` on `api_tokens` (`user_id`);');
    this.addSql('create unique index `api_tokens_token_hash_unique` on `api_tokens` (`token_hash`);');
  }
}
